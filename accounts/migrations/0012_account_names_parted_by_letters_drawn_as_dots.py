"""The names, as names are compared, of the accounts whose usernames hold a letter drawn as a
middle dot (games.services.codes.LETTERS_DRAWN_AS_DOTS: "annꞏlee"), stored anew: such a letter parts
a name as a middle dot does now, so "annꞏlee" reads as "ann.lee". An account whose name so reads
as another's keeps it, marked ``reads_as_older`` as 0009 and 0011 marked look-alikes (which of the
two holds the name matters to no one: both keep theirs, and a third that reads as either is
refused)."""

from django.conf import settings
from django.db import migrations
from django.db.models import Q

# The letters as this migration knows them: a later one added to the rule has a migration of its own.
LETTERS = "\ua78f\u1427\u119e\u318d"


def store_anew(apps, schema_editor):
    from accounts.validators import name_skeletons  # the rule itself: stored skeletons must match it

    app_label, model_name = settings.AUTH_USER_MODEL.split(".")
    User = apps.get_model(app_label, model_name)
    AccountName = apps.get_model("accounts", "AccountName")
    holding = Q()
    for letter in LETTERS:
        holding |= Q(username__contains=letter)
    users = User.objects.filter(holding).order_by("date_joined", "pk").values_list("pk", "username")
    for pk, username in users.iterator():
        skeleton, capitals = name_skeletons(username)
        keys = [skeleton, capitals]
        others = AccountName.objects.filter(reads_as_older=False).exclude(user_id=pk)
        older = others.filter(Q(skeleton__in=keys) | Q(capitals__in=keys)).exists()
        row = {"skeleton": skeleton, "capitals": capitals}
        if not AccountName.objects.filter(user_id=pk).update(**row, reads_as_older=older):
            AccountName.objects.create(user_id=pk, **row, reads_as_older=older)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0011_account_names_in_capitals_of_every_account"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(store_anew, migrations.RunPython.noop, elidable=True),
    ]
