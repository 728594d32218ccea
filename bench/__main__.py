"""`python -m bench` runs every benchmark at its default scale; `python -m bench NAME [args]` one."""

from __future__ import annotations

import sys

from bench import (
    api_load,
    chat_turn,
    context_pooling,
    cross_language,
    entities,
    erasure_rewrite,
    faults,
    forgetting,
    imports,
    judgement,
    languages,
    locomo,
    locomo_latency,
    mcp,
    me_list,
    mem0_quality,
    mixed_load,
    offline_extraction,
    people,
    policy_detector,
    recall_latency,
    secret_detector,
    serving,
    speed,
    whose_named,
    write_throughput,
    zh_rules,
)

BENCHMARKS = {
    "locomo": locomo.main,
    "locomo_latency": locomo_latency.main,
    "recall_latency": recall_latency.main,
    "write_throughput": write_throughput.main,
    "chat_turn": chat_turn.main,
    "context_pooling": context_pooling.main,
    "api_load": api_load.main,
    "policy_detector": policy_detector.main,
    "judgement": judgement.main,
    "erasure_rewrite": erasure_rewrite.main,
    "secret_detector": secret_detector.main,
    "mixed_load": mixed_load.main,
    "offline_extraction": offline_extraction.main,
    "serving": serving.main,
    "speed": speed.main,
    "mem0_quality": mem0_quality.main,
    "mcp": mcp.main,
    "forgetting": forgetting.main,
    "me_list": me_list.main,
    "zh_rules": zh_rules.main,
    "languages": languages.main,
    "cross_language": cross_language.main,
    "entities": entities.main,
    "people": people.main,
    "whose_named": whose_named.main,
    "imports": imports.main,
    "faults": faults.main,
}


def main(argv: list[str]) -> None:
    if argv and argv[0] in ("-h", "--help"):
        print(f"usage: python -m bench [{'|'.join(BENCHMARKS)}] [options]")
        return
    if argv and argv[0] in BENCHMARKS:
        BENCHMARKS[argv[0]](argv[1:])
        return
    if argv:
        sys.exit(f"unknown benchmark {argv[0]!r}; choose from {', '.join(BENCHMARKS)}")
    for run in BENCHMARKS.values():
        run([])


if __name__ == "__main__":
    main(sys.argv[1:])
