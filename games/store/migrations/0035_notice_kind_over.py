# A notice of a game's end at one's own pace, beside those of a turn and a reminder.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0034_taken_out_seats_marked")]

    operations = [
        migrations.AlterField(
            model_name="notice",
            name="kind",
            field=models.CharField(
                choices=[("turn", "Your turn"), ("reminder", "Reminder"), ("over", "Game over")], max_length=8
            ),
        ),
    ]
