# A person known only by a Chinese kin word was named "my 老公" (or "Ana's 老公"): English around the
# user's Chinese word, as the API returned it and the person's page prefilled its name. Such names
# are now in the word's language ("我的老公", "Ana的老公", `entities.resolve.placeholder_name`); this
# renames the unnamed entities stored before. Reversed, it puts back the English wording.

import re

from django.db import migrations

HAN = re.compile(r"[\u3400-\u9fff]")
MINE, THEIRS = re.compile(r"my (.+)"), re.compile(r"(.+)'s (.+)")
MINE_ZH, THEIRS_ZH = re.compile(r"我的(.+)"), re.compile(r"(.+)的(.+)")


def _chinese_word(word):
    return bool(HAN.search(word)) and not re.search(r"[A-Za-z]", word)


def to_chinese(name):
    if (found := MINE.fullmatch(name)) and _chinese_word(found[1]):
        return "我的" + found[1]
    if (found := THEIRS.fullmatch(name)) and _chinese_word(found[2]):
        return to_chinese(found[1]) + "的" + found[2]
    return name


def to_english(name):
    if (found := MINE_ZH.fullmatch(name)) and _chinese_word(found[1]) and "的" not in found[1]:
        return "my " + found[1]
    if (found := THEIRS_ZH.fullmatch(name)) and _chinese_word(found[2]):
        return to_english(found[1]) + "'s " + found[2]
    return name


def _rename(apps, change):
    Entity = apps.get_model("memory_core", "Entity")
    renamed = []
    for entity in Entity.objects.filter(named=False, is_self=False).only("id", "name").iterator():
        name = change(entity.name)
        if name != entity.name:
            entity.name = name
            renamed.append(entity)
    Entity.objects.bulk_update(renamed, ["name"], batch_size=500)


def forwards(apps, schema_editor):
    _rename(apps, to_chinese)


def backwards(apps, schema_editor):
    _rename(apps, to_english)


class Migration(migrations.Migration):
    dependencies = [("memory_core", "0028_admin_names")]

    operations = [migrations.RunPython(forwards, backwards)]
