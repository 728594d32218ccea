# ruff: noqa: RUF001, E501  # data: Chinese sentences with their own punctuation, one pair a line
"""Cross-language recall pairs: a memory in one language, a question in the other, and the
question's human translation (the oracle a perfect translator would give).

One user holds every memory (Chinese and English mixed, as a bilingual user's would be); each
question is asked about exactly one of them. Written to read like real users, not to share words:
across languages a question shares no word with its memory except names and numbers.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pair:
    memory: str
    question: str
    translated: str  # the question in the memory's language, by a person


# Chinese memories, English questions.
ZH_MEMORIES_EN_QUESTIONS = [
    Pair("我最喜欢看科幻电影，尤其是《星际穿越》。", "What kind of films do I enjoy?", "我喜欢看什么类型的电影？"),
    Pair("我女儿每周六上午学钢琴。", "What does my daughter do on Saturday mornings?", "我女儿周六上午做什么？"),
    Pair("我上个月开始学潜水，已经拿到了初级证书。", "Have I started any new sport recently?", "我最近开始了什么新运动吗？"),
    Pair("我每天早上喝一杯绿茶，不喝咖啡。", "What do I drink in the morning?", "我早上喝什么？"),
    Pair("我家的猫叫团团，是一只橘猫。", "What is my cat called?", "我的猫叫什么名字？"),
    Pair("我在一家医院做护士，经常上夜班。", "What is my job?", "我的工作是什么？"),
    Pair("我老家在四川成都。", "Where is my hometown?", "我的老家在哪里？"),
    Pair("我对海鲜过敏，特别是虾和螃蟹。", "Is there any food I should avoid?", "有什么食物我应该避免吗？"),
    Pair("我的车是一辆白色的特斯拉。", "What car do I drive?", "我开什么车？"),
    Pair("我打算明年春天去日本看樱花。", "Where am I planning to travel next spring?", "我明年春天打算去哪里旅行？"),
    Pair("我正在准备雅思考试，目标是七分。", "Which exam am I preparing for?", "我在准备什么考试？"),
    Pair("我周末喜欢去爬山，常去香山。", "What do I like doing at the weekend?", "我周末喜欢做什么？"),
    Pair("我妈妈有高血压，每天要吃药。", "Does my mother have any health problems?", "我妈妈有什么健康问题吗？"),
    Pair("我是素食者，不吃肉。", "Do I eat meat?", "我吃肉吗？"),
    Pair("我的生日是十月十二号。", "When is my birthday?", "我的生日是哪天？"),
    Pair("我在学西班牙语，每周上两次课。", "Which foreign language am I learning?", "我在学哪种外语？"),
    Pair("我儿子今年九月上小学一年级。", "When does my son start school?", "我儿子什么时候开始上学？"),
    Pair("我喜欢读村上春树的小说。", "Who is my favourite author?", "我最喜欢的作家是谁？"),
    Pair("我每周三晚上打羽毛球。", "When do I play badminton?", "我什么时候打羽毛球？"),
    Pair("我租的房子在地铁二号线旁边。", "How do I get to my flat by public transport?", "我怎么坐公共交通到我的公寓？"),
    Pair("我讨厌香菜，点菜时不要放香菜。", "Which herb do I dislike?", "我不喜欢哪种香草？"),
    Pair("我睡眠不好，晚上经常失眠。", "Do I sleep well?", "我睡得好吗？"),
    Pair("我的笔记本电脑是一台 MacBook Pro。", "What laptop do I use?", "我用什么笔记本电脑？"),
    Pair("我下个月要搬到杭州。", "Am I moving house soon?", "我最近要搬家吗？"),
]

# English memories, Chinese questions.
EN_MEMORIES_ZH_QUESTIONS = [
    Pair("I collect vintage fountain pens.", "我收集什么东西？", "What do I collect?"),
    Pair("My brother runs a small bakery in Porto.", "我哥哥是做什么的？", "What does my brother do?"),
    Pair("I'm lactose intolerant, so no milk in my coffee.", "我的咖啡里可以加牛奶吗？", "Can I have milk in my coffee?"),
    Pair("I play the cello in a community orchestra.", "我会演奏什么乐器？", "What instrument do I play?"),
    Pair("My wife's name is Clara and she is a dentist.", "我妻子叫什么名字？", "What is my wife's name?"),
    Pair("I run a half marathon every spring.", "我每年春天参加什么比赛？", "Which race do I do every spring?"),
    Pair("I work remotely as a data engineer for a bank.", "我的职业是什么？", "What is my occupation?"),
    Pair("My favourite cuisine is Ethiopian food.", "我最喜欢哪国菜？", "Which country's food do I like best?"),
    Pair("I have a golden retriever named Biscuit.", "我养了什么宠物？", "What pet do I have?"),
    Pair("I'm saving up to buy a house next year.", "我明年有什么打算？", "What are my plans for next year?"),
    Pair("I take the 7:40 train to work every morning.", "我每天早上怎么去上班？", "How do I get to work every morning?"),
    Pair("I grew up in a small village in Norway.", "我在哪里长大？", "Where did I grow up?"),
    Pair("I'm allergic to penicillin.", "我对什么药过敏？", "Which medicine am I allergic to?"),
    Pair("I prefer short answers with bullet points.", "我喜欢什么样的回答方式？", "What style of answer do I like?"),
    Pair("My daughter is learning to swim this summer.", "我女儿今年夏天在学什么？", "What is my daughter learning this summer?"),
    Pair("I volunteer at the animal shelter on Sundays.", "我星期天做志愿者吗？", "Do I volunteer on Sundays?"),
    Pair("I broke my left wrist skiing last winter.", "我去年冬天受过什么伤？", "What injury did I have last winter?"),
    Pair("I drink oat milk lattes.", "我喝什么样的拿铁？", "What kind of latte do I drink?"),
    Pair("My favourite football team is Benfica.", "我支持哪支足球队？", "Which football team do I support?"),
    Pair("I am learning Japanese on Duolingo.", "我在用什么应用学语言？", "Which app am I learning a language with?"),
    Pair("I can't stand horror movies.", "我不喜欢什么电影？", "What films do I dislike?"),
    Pair("My parents live in Toronto.", "我父母住在哪里？", "Where do my parents live?"),
    Pair("I have type 2 diabetes and watch my sugar intake.", "我有什么慢性病吗？", "Do I have any chronic illness?"),
    Pair("I keep bees in my back garden.", "我在后院养了什么？", "What do I keep in my back garden?"),
]

PAIRS = ZH_MEMORIES_EN_QUESTIONS + EN_MEMORIES_ZH_QUESTIONS
