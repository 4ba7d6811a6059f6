"""Each socket's Presence row keeps since when its page has been hidden (``hidden_since``; null while
it is shown, as for every row written before), as the page says over its socket."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0022_player_left_controller"),
    ]

    operations = [
        migrations.AddField(
            model_name="presence",
            name="hidden_since",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
