"""The pages' date formats per language (FORMAT_MODULE_PATH): templates name a format
("DATE_FORMAT"), each language says it its own way; a language without a module here uses
Django's own (Simplified Chinese: "2026年12月2日")."""
