"""Train the write path's judgement models from the labelled sets (memory_core/judgement/train.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from memory_core.judgement.model import DEFAULT_DIR
from memory_core.judgement.train import ENCODER_CHOICES, train


class Command(BaseCommand):
    help = "Train the rule / weakening / secret / safety models and write them with their checksums."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--out", default=str(DEFAULT_DIR), help="where the models and manifest go")
        parser.add_argument("--c", type=float, default=16.0, help="inverse regularisation strength")
        parser.add_argument(
            "--encoder",
            choices=ENCODER_CHOICES,
            default="train",
            help="fine-tune the encoder again (about half an hour on two cores), keep the one in --out, "
            "or leave it out",
        )
        parser.add_argument(
            "--safety-encoder",
            choices=ENCODER_CHOICES,
            default="train",
            help="fine-tune the encoder of whose safety fact again (a quarter of an hour), keep the one "
            "in --out, or leave it out",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        train(
            Path(options["out"]),
            c=options["c"],
            encoder=options["encoder"],
            safety_encoder=options["safety_encoder"],
            log=lambda line: self.stdout.write(line),
        )
        self.stdout.write(self.style.SUCCESS(f"models written to {options['out']}"))
