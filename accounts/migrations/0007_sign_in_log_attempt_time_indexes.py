"""An index on the time of each row of django-axes' sign-in log, which its own models lack: the
scheduler's sweep (games.services.sweeps.sign_in_log) picks the rows to delete by that time every
round, and without it read the whole log (90 days of sign-ins) each time.

django-axes' tables are its own app's, so the index is made here in SQL, outside the models'
state (an ``AddIndex`` applies to its migration's own app); the SQL is the same on PostgreSQL
and SQLite. Should django-axes index the column itself one day, a migration here drops these.
"""

from django.db import migrations

TABLES = ["axes_accesslog", "axes_accessfailurelog", "axes_accessattempt"]


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_deleted_names_held"),
        ("axes", "0010_accessattemptexpiration"),
    ]

    operations = [
        migrations.RunSQL(
            f"CREATE INDEX IF NOT EXISTS {table}_attempt_time ON {table} (attempt_time)",
            f"DROP INDEX IF EXISTS {table}_attempt_time",
            elidable=False,
        )
        for table in TABLES
    ]
