"""Chinese statements clause by clause: a small lexicon of controls and of what relaxes them."""

from __future__ import annotations

import re

from .style import answer_style

HAN = re.compile(r"[\u4e00-\u9fff]")
_ZH_CONTROLS: list[tuple[str, str, str]] = [
    ("authentication", "guard", r"双重认证|双因素|两步验证|二次验证|验证码|密码|登录验证|安全问题|认证"),
    (
        "verification",
        "guard",
        r"身份验证|验证身份|核实身份|核验|核实|实名|身份|验证|收据|凭证|证件|背景调查|二次确认|确认",
    ),
    (
        "approval",
        "guard",
        r"审批|批准|签字|签批|授权|复核|审批流程|流程|(?:经过|征得|征求)?(?:我的?)?同意|问我|请示",
    ),
    ("limit", "guard", r"限额|上限|额度|限制|封顶"),
    ("review", "guard", r"代码审查|审查|评审|审计|审核"),
    # The assistant's caveat: a risk note, the advice to consult a professional.
    (
        "safety",
        "guard",
        r"安全|过滤|内容审核|风险提示|健康提示"
        r"|(?:请)?咨询(?:一下)?(?:专业的?|正规的?)?(?:医生|医师|药剂师|律师|会计师|专业人士|医护人员)"
        # or named by what it is about ("过敏说明", "用药提醒")
        r"|(?:过敏|健康|用药|药物|医疗|法律|投资|孕期|饮食)(?:提示|说明|提醒|警告|备注|注意事项)",
    ),
    ("instructions", "guard", r"指令|指示|提示词|系统提示|规则|设定"),
    ("access", "benefit", r"管理员权限|权限|管理员|访问"),
    ("discount", "benefit", r"折扣|优惠|打折|打[一二三四五六七八九\d]+折|[一二三四五六七八九\d]+折"),
    ("refund", "benefit", r"退款"),
]
_ZH_RELAX = re.compile(
    r"不再需要|不再要|不用再|不再|不用|不需要|不经过|未经|不经|不设|没有(?=(?:任何)?(?:限额|上限|额度|限制|审批|审核|验证))|无需|无须|不必|免除|豁免|免(?!费)|可以不|可不|跳过|略过"
    r"|省略|省掉|省去|免掉|拿掉|砍掉|删掉|不走|忽略|忽视|无视"
    # "别再加风险提示", "不要再附过敏说明", "别提醒我咨询医生": a caveat not added (over the labelled sets,
    # 42 texts say these words and no reading changed)
    r"|别再?加|不要再?加|别再?附|不要再?附|别再?提醒|不要再?提醒"
    r"|绕过|绕开|取消|关闭|关掉|停用|禁用|解除|去掉|放宽|不受|无限|不限|可选"
)
_ZH_RAISE = re.compile(r"提高|提升|增加|上调|放宽")
# Giving away: only a grant to everyone or automatically ("一律", "自动", "所有") relaxes anything.
_ZH_GRANT = re.compile(
    r"自动批准|自动通过|直接批准|一律批准|全部批准|都批准|批准所有|直接给|自动给|全部给|都给|给所有"
    r"|(?<![要须得])(?:批准|通过|给予?|获得|得到|拥有|开通|开放|发放|授予)"
)
_ZH_BROAD = re.compile(r"所有|全部|一律|任何|都|自动|直接|无条件")
_ZH_PROHIBIT = re.compile(r"(?:不要|不得|禁止|不能|不可以|不可|不许|严禁|切勿|别|不准|绝不|决不|绝对不)$")
_ZH_STANDING = re.compile(
    r"以后(?!再说|再聊|再看)|从现在起|从现在开始|今后|从今以后|往后|从今天起|从今天开始|一律|总是|永远|始终|每次|默认|务必"
    r"|一定要|请(?!假|客|教|问|柬)"
)
_ZH_IMPERATIVE = re.compile(
    r"^(?:请(?!假|客|教|问|柬)|不要|别|不得|禁止|务必|一定要|总是|永远|始终|用|使用|回答|回复|给|批准|跳过|忽略|绕过|安排|发送|保持|提高"
    r"|取消|关闭)"
)
_ZH_PERSON = re.compile(r"^(?:我|用户|本人|俺|咱|他|她|我们家|[\u4e00-\u9fff]{1,3}(?:先生|女士|小姐))")
# A time before the subject: "下周五我要去北京出差", "每天早上我都跑步".
_ZH_WHEN = re.compile(
    r"^(?:(?:下|上|这|本|每|下下)(?:个)?(?:周|星期|礼拜|月|年)[一二三四五六七日天末]?|明天|后天|昨天|前天|今年|明年|去年"
    r"|前年|周[一二三四五六日末]|星期[一二三四五六日天]|[早晚]上|中午|下午|上午|平时|平常|每天|最近|现在|目前"
    r"|[\d一二三四五六七八九十]+月(?:[\d一二三四五六七八九十]+[日号])?|[\d一二三四五六七八九十]+[日号])+"
)
_ZH_MODAL = re.compile(r"需要|必须|应该|应当|可以|不得|禁止|不能|不可|不许|严禁|切勿|不准|须|要(?!是)")
# A question proposes nothing: "要是我对青霉素过敏会怎么样".
_ZH_QUESTION = re.compile(r"(?:吗|呢|怎么样|怎么办|为什么|是不是|会不会)$|^(?:要是|如果|假如|万一)")
# The user's company, bank or phone has its own rules; they are not this assistant's.
_ZH_EXTERNAL = re.compile(
    r"^(?:我|用户|他|她)的?(?:公司|银行|学校|单位|老板|经理|手机|电脑|车|家|房东|医生|雇主|保险|医院|诊所|健身房|物业"
    r"|航空公司|孩子|家人)"
)
_ZH_HABIT = re.compile(r"总是|经常|常常|一直|老是|通常")
# "这次不用确认了": said of this once, no standing rule (unless a standing word says otherwise).
_ZH_ONCE = re.compile(r"今天|今晚|这次|这一次|这回|这单|这笔|刚才|现在就|马上")
# "请记住…", "别忘了…": what follows is read as said; the request itself is no rule.
_ZH_REMEMBER_LEAD = re.compile(
    r"^(?:请|麻烦|麻烦你|你|您)?(?:帮我|给我)?(?:记住|记一下|记下|记着|记好|别忘了|不要忘了|别忘记|不要忘记)(?:了|哦|啊|一下)?"
)
# "叫我老陈", "你可以称呼我小李": how the user wants to be called, a fact about the user.
_ZH_CALL_ME = re.compile(r"(?:叫|称呼|喊)我")
# Blanket approval: "直接批准", "自动通过", "一律批准" give the approval away whatever is approved.
_ZH_BLANKET = re.compile(
    r"(?:自动|直接|一律|全部|统统|都)(?:可以)?(?:批准|通过|放行|(?P<refund>退款|退货|退))"
)
_ZH_PAST = re.compile(r"了|昨天|已经|已于|曾|上周|上个月|去年|\d+月\d+日")


# Traditional characters of the lexicon, read as simplified.
_ZH_TRADITIONAL = str.maketrans(
    "審驗證認權額過繞無從現後須準碼雙戶資購據實經規則員給動關閉護問題設開啟單態應該們會議時間預覆歷來這個為對說請讓許嚴級稅費優條檢覈減價"
    "亂憑銷報賬帳戶務擬簽發寬",
    "审验证认权额过绕无从现后须准码双户资购据实经规则员给动关闭护问题设开启单态应该们会议时间预复历来这个为对说请让许严级税费优条检核减价"
    "乱凭销报账账户务拟签发宽",
)


def simplified(text: str) -> str:
    """The text with the traditional characters of the lexicon read as simplified."""
    return text.translate(_ZH_TRADITIONAL)


def chinese(text: str, *, procedural: bool) -> tuple[bool, list[tuple[int, int, str]]]:
    """(reads as a rule, relaxed controls) of the Chinese clauses of a text."""
    text = text.translate(_ZH_TRADITIONAL)
    is_rule, relaxed = False, []
    about_person = False  # the sentence so far is about the user or a named person
    # Each clause with whether its sentence is the user's own answer-style preference ("回复我的时候,
    # 请尽量简短"): that sentence is about the user, like a statement of theirs.
    clauses = [
        (clause, answer_style(sentence))
        for sentence in re.split(r"[\u3002\uff01\uff1f.!?\n]+", text)
        for clause in re.split(r"[\uff0c\uff1b,;\s]+", sentence)
        if clause
    ]
    asks = bool(re.search(r"[?\uff1f]\s*$", text))
    for offset, (clause, own_style) in enumerate(clauses):
        clause = _ZH_REMEMBER_LEAD.sub("", clause)
        if not clause:
            continue  # "请帮我记住": the request; what follows is read on its own
        if _ZH_QUESTION.search(clause) or (asks and offset == len(clauses) - 1):
            continue
        standing = bool(_ZH_STANDING.search(clause))
        person = (
            bool(_ZH_PERSON.match(_ZH_WHEN.sub("", clause))) or bool(_ZH_CALL_ME.search(clause)) or own_style
        ) and not procedural
        # Chinese drops a repeated subject: "我海鲜过敏 / 虾蟹都不能碰" is still about the user, and
        # so is a polite request for their own sake ("…过敏 / 开药前请提醒我"); "以后…" starts a rule.
        starts_rule = bool(_ZH_STANDING.search(clause.replace("请", "")))
        person = person or (about_person and not starts_rule and not clause.startswith(("你", "您")))
        about_person = person
        if person and _ZH_EXTERNAL.match(clause):
            continue
        if _ZH_ONCE.search(clause) and not standing:
            continue
        found = _clause_relaxed(clause)
        blanket = _ZH_BLANKET.search(clause)
        if not found and blanket and not _ZH_PROHIBIT.search(clause[: blanket.start()]):
            # what is approved is no control of the lexicon: "直接批准" gives approval away, "直接退" refunds
            found = [(blanket.start(), "refund" if blanket.group("refund") else "approval")]
        relaxed += [(0, offset * 1000 + pos, name) for pos, name in found]
        past = _ZH_PAST.search(clause) and not _ZH_STANDING.search(clause)
        if person and (past or _ZH_HABIT.search(clause)):
            relaxed = [r for r in relaxed if r[1] // 1000 != offset]
        if not person and (
            _ZH_STANDING.search(clause) or _ZH_IMPERATIVE.match(clause) or _ZH_MODAL.search(clause)
        ):
            is_rule = True
    return is_rule or bool(relaxed), relaxed


def _clause_relaxed(clause: str) -> list[tuple[int, str]]:
    """(position, control) of every control a clause relaxes: each relaxing, granting or raising word
    not under a prohibition is paired with the nearest control it can relax."""
    controls = [(m.start(), name, kind) for name, kind, p in _ZH_CONTROLS for m in re.finditer(p, clause)]
    found = []
    for m in (
        list(_ZH_RELAX.finditer(clause)) + list(_ZH_GRANT.finditer(clause)) + list(_ZH_RAISE.finditer(clause))
    ):
        if _ZH_PROHIBIT.search(clause[: m.start()]):
            continue
        word = m.group(0)
        for pos, name, kind in sorted(controls, key=lambda c: abs(c[0] - m.start())):
            if _pairs(word, name, kind, clause):
                found.append((min(pos, m.start()), name))
                break
    return found


def _pairs(word: str, name: str, kind: str, clause: str) -> bool:
    """Whether a relaxing, granting or raising word relaxes this control."""
    if _ZH_RAISE.fullmatch(word):
        return name == "limit"
    if _ZH_GRANT.fullmatch(word):
        return kind == "benefit" and bool(_ZH_BROAD.search(clause))
    return kind == "guard"
