"""Every column a migration added since the first release has a default in the database
(``db_default``): code of the release before, still serving while a migration runs, inserts rows
that do not name a column it does not know, and the database must fill it (docs/deploy.md,
"Upgrading"). Only the columns' defaults change: PostgreSQL rewrites no row."""

import django.db.models.functions.datetime
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0026_presence_browser"),
    ]

    operations = [
        migrations.AlterField(
            model_name="chatmessage",
            name="controller",
            field=models.CharField(blank=True, db_default="", default="", max_length=64),
        ),
        migrations.AlterField(
            model_name="game",
            name="chat_spectators",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AlterField(
            model_name="game",
            name="followups_owed",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AlterField(
            model_name="game",
            name="hints",
            field=models.BooleanField(db_default=True, default=True),
        ),
        migrations.AlterField(
            model_name="game",
            name="pace",
            field=models.CharField(
                choices=[("live", "Live"), ("own", "At your own pace")], db_default="live", default="live", max_length=4
            ),
        ),
        migrations.AlterField(
            model_name="game",
            name="turn_timer",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AlterField(
            model_name="game",
            name="waiting_on",
            field=models.CharField(blank=True, db_default="", db_index=True, default="", max_length=64),
        ),
        migrations.AlterField(
            model_name="notice",
            name="event",
            field=models.JSONField(blank=True, db_default={}, default=dict),
        ),
        migrations.AlterField(
            model_name="notice",
            name="owed_at",
            field=models.DateTimeField(
                db_default=django.db.models.functions.datetime.Now(), default=django.utils.timezone.now
            ),
        ),
        migrations.AlterField(
            model_name="noticesettings",
            name="address",
            field=models.EmailField(blank=True, db_default="", default="", max_length=254),
        ),
        migrations.AlterField(
            model_name="noticesettings",
            name="language",
            field=models.CharField(blank=True, db_default="", default="", max_length=8),
        ),
        migrations.AlterField(
            model_name="noticesettings",
            name="pending_address",
            field=models.EmailField(blank=True, db_default="", default="", max_length=254),
        ),
        migrations.AlterField(
            model_name="noticesettings",
            name="pending_controller",
            field=models.CharField(blank=True, db_default="", default="", max_length=64),
        ),
        migrations.AlterField(
            model_name="noticesettings",
            name="pending_language",
            field=models.CharField(blank=True, db_default="", default="", max_length=8),
        ),
        migrations.AlterField(
            model_name="noticesettings",
            name="pending_nonce",
            field=models.CharField(blank=True, db_default="", db_index=True, default="", max_length=64),
        ),
        migrations.AlterField(
            model_name="player",
            name="away_controller",
            field=models.CharField(blank=True, db_default="", db_index=True, default="", max_length=64),
        ),
        migrations.AlterField(
            model_name="player",
            name="left_controller",
            field=models.CharField(blank=True, db_default="", db_index=True, default="", max_length=64),
        ),
        migrations.AlterField(
            model_name="presence",
            name="browser",
            field=models.CharField(blank=True, db_default="", default="", max_length=32),
        ),
        migrations.AlterField(
            model_name="presence",
            name="controller",
            field=models.CharField(blank=True, db_default="", default="", max_length=64),
        ),
        migrations.AlterField(
            model_name="presence",
            name="origin",
            field=models.CharField(blank=True, db_default="", db_index=True, default="", max_length=32),
        ),
        migrations.AlterField(
            model_name="pushsubscription",
            name="language",
            field=models.CharField(blank=True, db_default="", default="", max_length=8),
        ),
    ]
