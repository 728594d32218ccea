"""Whose condition a statement tells once the people the user named are read from their graph
(`people_known`), and whether it tells one at all: the safety model reads a statement alone, a
name it never saw tells it little either way, and it learned dependants' conditions said with
their kin word or with the user's care of them, so it reads a condition into an introduction ("My
daughter Esme is 6 months") or the care itself ("i look after my mum"). `screening` pins by what
these say.
"""

from __future__ import annotations

from config.tuning import tuned
from memory_core import judgement
from memory_core.entities.care import without_care
from memory_core.extraction.slots import safety_frames
from memory_core.people_known import (
    DEPENDANT,
    PeopleKnown,
    introduction_by_pronoun,
    kin_by_pronoun,
    speaks_of_self,
    treatment_named,
)
from memory_core.whose_condition import without_home

# How sure the safety model must be that a statement tells someone's condition before the people it
# names are looked up in the user's graph. Lower than a rule's condition needs
# (`FACT_WITHIN_RULE_SURE`): a person the user named is evidence of its own, and the model reads a
# named child's condition said plainly at 0.3 to 0.5 ("Tilly has juvenile arthritis", 0.37; "阿哲有
# 異位性皮膚炎…", 0.39). Chosen on people-1 and people-2 (training data since): 0.5 → 0.3 pinned 2 and
# 1 more of their user's and dependants' conditions, nothing more of others' or none.
KNOWN_PERSON_SURE = 0.3


def known_person(people: PeopleKnown | None, content: str, whose: judgement.Safety) -> str | None:
    """What the people `content` names are to the user ("dependant", "other"), when the safety
    model reads someone's condition in it, and the user's graph settles it. A condition the model
    reads as the user's own, told in the first person ("I'm diabetic, Maya knows where my tablets
    are"), is theirs whoever else it names; without it ("小林对芒果过敏", read as the user's: no
    subject but the name) the name decides."""
    sure = float(tuned("KNOWN_PERSON_SURE", KNOWN_PERSON_SURE))  # above 1: never (bench whose_named)
    if people is None or whose.who == judgement.UNJUDGED or sure > 1:
        return None
    treated = treatment_named(content)
    if whose.anyone < BY_PRONOUN_FLOOR and not treated:
        return None  # no health in it at all: the graph is not read (most ordinary turns)
    if whose.who == "user" and speaks_of_self(content):
        return None  # the user's own, told in the first person, whoever else it names
    found = people.whose(content)
    if found == DEPENDANT and not treated:
        # Whether there is a condition at all is read with the person said by a pronoun (the model
        # reads little from a name it never saw, both ways): "Farzana has kidney disease" 0.12
        # someone's, "she has kidney disease" 0.57; "Maisie started nursery today" 0.54, "she
        # started nursery today" 0.1. (Said by their kin word, "my mother …", the model reads a
        # condition into nearly anything: "my daughter is tired after the party", 0.88.)
        # Less what says the user looks after them, which the model reads as a condition itself.
        rest = without_care(content)
        base = content if rest is None else rest
        said = [text for text in people.said_by_pronoun(base) if text != content]
        by_kin = people.kin_said_by_pronoun(base)
        if not said and by_kin and by_kin != content:
            # One of their kin in their care by a kin word ("Mum", "奶奶"): the model read the kin
            # word's statement as it learned them and took a grandmother's for someone else's; a
            # condition must read both ways ("奶奶最近心情不错" 0.10 as said, 0.22 as "她…").
            sure_of_it = whose.anyone >= sure and judgement.safety(by_kin).anyone >= PRONOUN_SURE
            return DEPENDANT if sure_of_it else NO_CONDITION
        if not said and rest is not None:
            said = [kin_by_pronoun(rest)]
        anyone = max((judgement.safety(text).anyone for text in said), default=None)
        if anyone is None:
            return DEPENDANT if whose.anyone >= sure else None
        return DEPENDANT if anyone >= PRONOUN_SURE else NO_CONDITION
    if whose.anyone < sure and not treated:
        return None  # not read as a condition, and no medicine or device named in it
    return found


# A named dependant's statement that tells no condition once they are said by a pronoun: known, and
# not pinned (`_pinned_safety` pins what `known` is a dependant's only).
NO_CONDITION = "none"
# Below this the safety model sees no health in a statement at all, and the graph is not read for it.
# 0.08 until the regressions' retrain with the contrast set of frames, which read "Farzana has kidney
# disease" 0.12 -> 0.07; at 0.05, people-8 the same (74/101 at 74/89 with the graph).
BY_PRONOUN_FLOOR = 0.05
# How sure the model must be of a condition in a named dependant's statement said by a pronoun: "she
# started nursery today", "他下周考试" read 0.00-0.04, "他的氯吡格雷还剩一盒" 0.26, "he's got
# Osgood-Schlatter in both knees" 0.37. Chosen on people-1 to -5 (training data).
PRONOUN_SURE = 0.2


def only_an_introduction(text: str) -> bool:
    """Whether `text`, read by the model as a dependant's condition, introduces one of the user's
    kin by name and reads as no condition once that kin is said by a pronoun ("My daughter Esme is
    6 months", "My dad Gerald moved in with us and I'm his main carer now", "我儿子乐乐才三岁": the
    model learned that what is said of "my daughter" is her condition). What it unpins over every
    labelled set, of dependants' conditions and of statements with none: docs/trust.md."""
    if safety_frames(text)[0] or treatment_named(text):
        return False  # the reader's own frames read a health fact in it, or a medicine is named
    said = introduction_by_pronoun(text)
    return said is not None and judgement.safety(said).anyone < PRONOUN_SURE


def only_care(text: str) -> bool:
    """Whether `text`, read by the model as a dependant's condition, says the user looks after one
    of their kin and reads as no condition without those words, the kin said by a pronoun ("i look
    after my mum june she lives with me since dad passed", "去年开始一直是我在照顾她": the model learned
    dependants' conditions told with the care). What it unpins over every labelled set:
    docs/trust.md."""
    if safety_frames(text)[0] or treatment_named(text):
        return False
    rest = without_care(text)
    return rest is not None and judgement.safety(kin_by_pronoun(rest)).anyone < PRONOUN_SURE


# How sure the model must be of a condition in a statement of kin who live with the user, read whole
# and again without the words that say so, the kin said by a pronoun (the model reads "lives with
# me" itself as a dependant's condition: "My brother lives with me, he's a nurse" 0.83 anyone's,
# "he , he's a nurse" 0.09; "我妹妹跟我住, 她在读大学" 0.29 so).
AT_HOME_SURE = 0.5


def kin_at_home(text: str, whose: judgement.Safety) -> bool:
    """Whether `text` tells the condition of a sibling, an aunt or an in-law who lives with the user
    ("My niece lives with us and she has a nut allergy", "婆婆同我哋住, 有認知障礙"): a dependant's,
    though a statement opening with such kin is otherwise someone else's (`someone_elses`). Over
    the labelled sets (batch 61 included) 23 statements open with such kin living with the user,
    all dependants' conditions: 14 more of them pinned (21 of 23), nothing else changed."""
    if whose.anyone < AT_HOME_SURE:
        return False
    rest = without_home(text)
    return rest is not None and judgement.safety(kin_by_pronoun(rest)).anyone >= AT_HOME_SURE
