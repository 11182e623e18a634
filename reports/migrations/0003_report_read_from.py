"""A report file says where its figures were read: the primary database, or the replica
and how far behind it was (casino.shared.db.ReadFrom); empty on files made before."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0002_content_types_from_rounds'),
    ]

    operations = [
        migrations.AddField(
            model_name='report',
            name='read_from',
            field=models.CharField(blank=True, max_length=300),
        ),
    ]
