"""The labelled multi-hop set of `python -m bench entities`: synthetic family and work graphs,
one user each, told as separate statements, with questions whose answer needs two links.

`python -m bench.entities_data` rewrites tests/data/entities/multihop.json (deterministic: a
fixed seed). Each user: statements (the graph, in varied wordings, plus distractors that share
words with the questions) and questions, each naming the statement that answers it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any


def _words(text: str) -> list[str]:
    return text.split()


PATH = Path(__file__).resolve().parent.parent / "tests" / "data" / "entities" / "multihop.json"

FIRST = _words(
    "Ana Marc Lena Tomas Priya Jonas Sofia Mateo Hana Elif Noah Ines Oskar Mira Rafael Yuki Nadia Felix "
    "Greta Hugo Leila Omar Clara Bruno Alma Dario Eva Ivan Nora Pablo Rosa Sami Tara Viktor Zoe Amir Bea "
    "Cyril Dora Emil Fatima Gil Ilse Joel Kira Luca Maya Nils Olga Piet Quinn Rina Stefan Tess Ugo Vera "
    "Wim Xena Yara Zeno"
)
JOBS = _words(
    "pilot nurse architect chef lawyer dentist plumber journalist teacher pharmacist engineer "
    "electrician librarian surgeon translator accountant"
)
ORGS = _words(
    "Airbus Siemens Nestle Philips Spotify Ikea Lego Novartis Renault Zalando Adidas Bosch Unilever"
)
CITIES = _words("Lyon Porto Leeds Ghent Bergen Graz Turin Malmo Utrecht Krakow Seville Aarhus Bilbao Basel")
PETS = _words("Bolt Miso Pepper Luna Biscuit Rocky Tofu Ziggy Olive Mochi")
FILLERS = [
    "I had pasta for dinner on Tuesday.",
    "My favourite colour is green.",
    "I am learning to play the cello.",
    "I prefer window seats on long flights.",
    "I go swimming twice a week.",
    "I do not like coriander.",
    "I want to visit Japan next spring.",
    "My flat has a small balcony.",
    "I usually wake up at six.",
    "I read mostly science fiction.",
    "I am allergic to cats' dander, mildly.",
    "I drink my coffee black.",
]


def _user(rng: random.Random, index: int) -> dict[str, Any]:
    names = rng.sample(FIRST, 12)
    sister, sis_husband, brother, bro_wife, mother, colleague, colleague2, friend, boss, stranger = names[:10]
    jobs = rng.sample(JOBS, 5)
    orgs = rng.sample(ORGS, 4)
    cities = rng.sample(CITIES, 6)
    pet = rng.choice(PETS)
    statements: dict[str, str] = {
        "sister": rng.choice(
            [f"My sister is {sister}.", f"{sister} is my sister.", f"My sister's name is {sister}."]
        ),
        "sister_married": rng.choice(
            [f"{sister} is married to {sis_husband}.", f"{sister}'s husband is {sis_husband}."]
        ),
        "sis_husband_job": rng.choice(
            [f"{sis_husband} works as a {jobs[0]}.", f"{sis_husband} is a {jobs[0]}."]
        ),
        "sis_husband_org": f"{sis_husband} works at {orgs[0]}.",
        "brother": rng.choice([f"My brother is {brother}.", f"{brother} is my brother."]),
        "brother_married": rng.choice(
            [f"{brother} is married to {bro_wife}.", f"{brother}'s wife is {bro_wife}."]
        ),
        "bro_wife_org": f"{bro_wife} works at {orgs[1]}.",
        "bro_wife_city": f"{bro_wife} lives in {cities[0]}.",
        "mother": rng.choice([f"My mother is {mother}.", f"My mother's name is {mother}."]),
        "mother_city": f"{mother} lives in {cities[1]}.",
        "colleague": f"My colleague {colleague} sits next to me.",
        "colleague_city": f"{colleague} lives in {cities[2]}.",
        "colleague2": f"My colleague {colleague2} joined last month.",
        "colleague2_job": f"{colleague2} is a {jobs[1]}.",
        "friend": rng.choice([f"My friend is {friend}.", f"{friend} is my friend."]),
        "friend_pet": f"{friend} has a dog named {pet}.",
        "boss": rng.choice([f"My boss is {boss}.", f"{boss} is my boss."]),
        "boss_city": f"{boss} lives in {cities[3]}.",
        # Distractors: same kinds of facts about people not linked to the user's kin.
        "stranger_job": f"{stranger} works as a {jobs[2]}.",
        "stranger_city": f"{stranger} lives in {cities[4]}.",
        "stranger_org": f"{stranger} works at {orgs[2]}.",
        "me_job": f"I work as a {jobs[3]}.",
        "me_city": f"I live in {cities[5]}.",
        "me_org": f"I work at {orgs[3]}.",
    }
    questions = [
        ("What does my sister's husband do for a living?", "sis_husband_job"),
        ("What is my sister's husband's job?", "sis_husband_job"),
        ("Where does my sister's husband work?", "sis_husband_org"),
        ("Which company employs my brother's wife?", "bro_wife_org"),
        ("Which city does my brother's wife live in?", "bro_wife_city"),
        ("Where does my mother live?", "mother_city"),
        ("Which city is my mum in?", "mother_city"),
        ("Which of my colleagues lives in another city, and where?", "colleague_city"),
        ("What is my friend's dog called?", "friend_pet"),
        ("Where does my boss live?", "boss_city"),
    ]
    rng.shuffle(FILLERS)
    return {
        "user": f"family-{index:02d}",
        "statements": statements,
        "fillers": list(FILLERS),
        "questions": [{"text": text, "answer": key} for text, key in questions],
    }


def build(users: int = 12, seed: int = 19) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [_user(rng, index) for index in range(users)]


def load() -> list[dict[str, Any]]:
    return json.loads(PATH.read_text(encoding="utf-8"))


if __name__ == "__main__":
    PATH.parent.mkdir(parents=True, exist_ok=True)
    data = build()
    PATH.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{PATH}: {len(data)} users, {sum(len(u['questions']) for u in data)} questions")
