"""A seat a computer plays on after its player left keeps that player's token (``Seat.left_controller``):
the seat's result is still theirs, found by it when they sign in and when their account is deleted.

Games where a computer took over a left seat before keep their results as they were counted.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0021_admin_log_without_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="left_controller",
            field=models.CharField(blank=True, db_index=True, default="", max_length=64),
        ),
    ]
