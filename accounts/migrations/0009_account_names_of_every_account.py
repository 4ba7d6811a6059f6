"""Every account's name as names are compared (AccountName), for the accounts made before it was
stored. An account whose name reads as an older account's (made before names were compared
glyph by glyph: "Ann1" and a later "Annl") keeps its name, marked ``reads_as_older`` and so left
out of the unique constraint; the older one, made first (then by id), holds the name."""

from django.conf import settings
from django.db import migrations


def fill(apps, schema_editor):
    from accounts.validators import name_skeleton  # the rule itself: stored skeletons must match it

    app_label, model_name = settings.AUTH_USER_MODEL.split(".")
    User = apps.get_model(app_label, model_name)
    AccountName = apps.get_model("accounts", "AccountName")
    stored = dict(AccountName.objects.values_list("user_id", "skeleton"))
    seen = set(stored.values())
    rows = []
    # Written a thousand at a time: held in one list, a site's every account costs ~540 bytes.
    for pk, username in User.objects.order_by("date_joined", "pk").values_list("pk", "username").iterator():
        if pk in stored:
            continue
        skeleton = name_skeleton(username)
        rows.append(AccountName(user_id=pk, skeleton=skeleton, reads_as_older=skeleton in seen))
        seen.add(skeleton)
        if len(rows) == 1000:
            AccountName.objects.bulk_create(rows)
            rows = []
    AccountName.objects.bulk_create(rows)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0008_account_names"),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
    ]
