"""A win is a first place over somebody: the wins the standings counted for games played alone
(first of one) are taken off, by counting each standing's wins again from its records."""

from typing import Any

from django.db import migrations
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce


def recount(apps: Any, schema_editor: Any) -> None:
    Standing = apps.get_model("accounts", "Standing")
    GameRecord = apps.get_model("accounts", "GameRecord")
    won = (
        GameRecord.objects.filter(user=OuterRef("user"), ruleset=OuterRef("ruleset"), rank=1, players__gt=1)
        .order_by()
        .values("user")
        .annotate(n=Count("id"))
        .values("n")
    )
    Standing.objects.update(wins=Coalesce(Subquery(won, output_field=IntegerField()), Value(0)))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_columns_default_in_the_database"),
    ]

    operations = [migrations.RunPython(recount, migrations.RunPython.noop, elidable=True)]
