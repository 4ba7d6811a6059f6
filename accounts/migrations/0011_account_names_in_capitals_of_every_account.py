"""Every account's name in capitals (AccountName.capitals), and a row for each account the release
before made without one while 0009 was being deployed. Accounts of one name in two cases (allauth's
case-insensitive check raced, or did not fold the letters on SQLite: "ΝΙΚΟ" and "νικο") keep
their names: the later one, made later (then by id), is marked ``reads_as_older`` and so left out
of the unique constraints, as 0009 marked look-alikes. So is an account without a row whose name
an account made after it holds (checked against the rows alone, it was signed up beside it), as
``accounts.services.account_names_complete`` marks it."""

from django.conf import settings
from django.db import migrations


def fill(apps, schema_editor):
    from accounts.validators import name_skeletons  # the rule itself: stored skeletons must match it

    app_label, model_name = settings.AUTH_USER_MODEL.split(".")
    User = apps.get_model(app_label, model_name)
    AccountName = apps.get_model("accounts", "AccountName")
    skeletons: set[str] = set()
    capitals: set[str] = set()
    made, filled = [], []
    users = User.objects.order_by("date_joined", "pk").values_list(
        "pk", "username", "account_name__skeleton", "account_name__capitals", "account_name__reads_as_older"
    )
    for pk, username, skeleton, stored_capitals, older in users.iterator():
        own_skeleton, own_capitals = name_skeletons(username)
        if skeleton is None:  # no row
            # An account made later on this release may hold the name already: it was checked
            # against the rows alone, and this account had none.
            taken = AccountName.objects.filter(skeleton=own_skeleton, reads_as_older=False).exists()
            older = taken or own_skeleton in skeletons or own_capitals in capitals
            made.append(AccountName(user_id=pk, skeleton=own_skeleton, capitals=own_capitals, reads_as_older=older))
            skeleton = own_skeleton
        elif stored_capitals is None:
            older = older or own_capitals in capitals
            filled.append(AccountName(user_id=pk, skeleton=skeleton, capitals=own_capitals, reads_as_older=older))
        else:
            own_capitals = stored_capitals
        if not older:
            skeletons.add(skeleton)
            capitals.add(own_capitals)
        # Written a thousand at a time: held in one list, a site's every account costs ~540 bytes.
        if len(made) == 1000:
            AccountName.objects.bulk_create(made)
            made = []
        if len(filled) == 1000:
            AccountName.objects.bulk_update(filled, ["capitals", "reads_as_older"])
            filled = []
    AccountName.objects.bulk_create(made)
    AccountName.objects.bulk_update(filled, ["capitals", "reads_as_older"])


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0010_account_names_in_capitals"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
    ]
