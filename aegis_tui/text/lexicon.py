"""The lexicon: CJK range, stop words, change and cap words, predicate dimensions, synonyms — each written once."""

from __future__ import annotations

import re
from decimal import Decimal

# ---- script ---------------------------------------------------------------------------------------------------
# CJK Unified Ideographs and Extension A. The Yijing hexagrams between them (U+4DC0–U+4DFF) are symbols, not words.
CJK_RANGE = "\u3400-\u4dbf\u4e00-\u9fff"
CJK = re.compile(f"[{CJK_RANGE}]")


def is_cjk(ch: str) -> bool:
    """Whether one character is a CJK ideograph (Unified or Extension A)."""
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf"


# ---- stop words -----------------------------------------------------------------------------------------------
# English words that never name an entity: dropped from subject names and from ranking terms.
STOP_EN = frozenset({"the", "a", "an", "of", "in", "for", "at", "on", "to", "and", "or", "by", "with", "is", "are",
                     "per"})
# Words with no content of their own around a value ("per night", "$75 each"). STOP_EN keeps "each": in
# "each quarter" it is part of what a clause says.
FUNCTION_WORDS_EN = STOP_EN | {"each"}
# Words that cannot modify a subject's noun ("must", "within", "all"): the realizer stops taking modifiers there.
NON_MODIFIERS_EN = FUNCTION_WORDS_EN | {
    "was", "be", "from", "than", "under", "over", "up", "using", "all", "any", "every", "that", "which", "who",
    "must", "may", "should", "will", "shall", "can", "not", "no", "as", "into", "within"}
# A question's own words ("what", "how much", "my"), dropped when ranking clauses against it.
QUERY_STOP_EN = STOP_EN | {"what", "how", "much", "many", "do", "does", "be", "which", "my", "i", "can", "it",
                           "its", "this", "that"}

# English personal pronouns: whom a question speaks of ("my son … give him"), never a thing a document must mention
PRONOUNS_EN = frozenset({
    "i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself", "yourselves", "he", "him", "his",
    "himself", "she", "her", "hers", "herself", "it", "its", "itself", "we", "us", "our", "ours", "ourselves",
    "they", "them", "their", "theirs", "themselves"})

# … and the Chinese characters of the asker and the one asked (我家, 我们, 您的): whom a question speaks from, no word
# of what it asks (not 他, whose 其他 names the others); and the demonstratives (这次, 那个): which one the asker
# means, as English "this" and "that", not what
PRONOUNS_ZH = frozenset("我你您咱这那")

# words a labelled predicate may not consist of alone ("the", "for", "more than"): it must say what the value is
PREDICATE_FILLER_EN = NON_MODIFIERS_EN | frozenset({"more", "less", "fewer", "up"})

# English words that carry no topic of their own in a question ("if so, how much …", "the most we could …"):
# the common function words of English, not words of any document's subject
QUESTION_FILLER_EN = QUERY_STOP_EN | NON_MODIFIERS_EN | frozenset({
    "if", "so", "only", "most", "least", "more", "less", "there", "here", "their", "they", "them", "we", "us",
    "our", "you", "your", "he", "she", "his", "her", "me", "am", "was", "were", "been", "being", "have", "has",
    "had", "having", "could", "would", "might", "did", "doing", "get", "gets", "got", "go", "goes", "going",
    "end", "much", "many", "some", "someone", "anyone", "one", "ones", "about", "after", "before", "again",
    "out", "off", "down", "back", "away", "then", "once", "both", "other", "such", "own", "same", "too", "very", "just",
    "why", "when", "where", "how", "whom", "whose", "what", "which", "while", "during", "between", "through",
    "these", "those", "it's", "i'm", "we're", "i've", "we've", "don't", "doesn't", "need", "needs", "long",
    "use", "uses", "using", "like", "also", "still", "yet", "but", "because", "until", "against", "above",
    "below", "further", "there's", "any", "all", "each", "every", "no", "nor", "not", "only", "own", "than",
    "up", "way", "ask", "tell", "know", "want", "let", "make", "made", "say", "says", "said", "thing", "things",
    "give", "gives", "given", "take", "takes", "put", "see", "sees"})  # light verbs ("do we give", "take a trip")

# Chinese: the particle 的, the copulas 为/是 and the prepositions that open a phrase — never part of a name.
# a question asked as A不A ("是不是", "能不能", "会不会"): one character, 不, the same character
A_NOT_A = r"(?P<verb>[\u4e00-\u9fff])不(?P=verb)"
# words that make a part of a question ask for something ("…是多少", "how soon …"); a part without one names a
# scope ("在三级医院住院，…")
QUESTION_WORDS = re.compile(r"百分之几|多少|多[大高长久]|什么|(?<![那这好十头])(?<![^提]前)(?<!^前)几[个年天月次成折]|哪|吗|如何|怎么|是否|有没有|有无|" + A_NOT_A + r"|可不可以|\b(?:what|how|when|which|who|where|whether|"
                            r"is|are|does|do|can|must)\b", re.IGNORECASE)
# a question that asks for several figures at once ("分别是多少", "各自", "what are the caps", "for each class"): a
# list of the document's figures may answer it
# the case a list gives for whatever it does not name ("其他城市", "其它人员", "all other cities"), and the kind of
# thing it is a case of (城市)
# A name a document defines by listing its members ("一类城市是指北京、上海、广州、深圳"), up to the clause's end
DEFINED_AS_ZH = re.compile(r"(?P<name>[\u4e00-\u9fff]{2,8})(?:是指|系指|指)(?P<members>[\u4e00-\u9fff]{2,8}(?:[、，,和及与][\u4e00-\u9fff]{2,8}){1,20})(?=[；;。]|$)")
# … or as a term a definitions list defines, after its colon, by longer members ("2. 新能源乘用车：指纯电动乘用车、插电式混合动力
# 乘用车和燃料电池乘用车。", its asides left out)
DEFINED_AS_COLON_ZH = re.compile(r"(?m)(?:^|[\s*])(?P<name>[\u4e00-\u9fff]{2,8})[：:](?:是指|系指|指)(?P<members>[\u4e00-\u9fff]{2,12}"
                                 r"(?:[、和及与][\u4e00-\u9fff]{2,12}){1,20})(?=[；;。]|$)")
# … or by naming its members in a parenthesis after it ("中心城区（含清河区、湖滨区、高新区）", "远郊区县（包括北山县、临江县）")
INCLUDES_ZH = re.compile(r"(?P<name>(?:(?!的)[\u4e00-\u9fff]){2,8})[（(](?:含|包括|包含)(?P<members>[\u4e00-\u9fff]{2,8}"
                         r"(?:[、，,和及与][\u4e00-\u9fff]{2,8}){0,20})(?:等)?[)）]")
# … or by a list item or line that names it and, after a colon, its members ("1. 一类区域：海晏区、东津区、望江新区；",
# "生活照料类：清洁照料、饮食照料、排泄照料等")
DEFINED_BY_LIST_ZH = re.compile(r"(?m)^[ \t]*(?:[-*+]|\d+[.、)]|[（(]?[一二三四五六七八九十]+[）)、.])?[ \t]*"
                                r"(?P<name>[\u4e00-\u9fff]{2,8})[：:][ \t]*(?P<members>(?![的为是在按于对由])"
                                r"[\u4e00-\u9fff]{2,10}?(?:(?:以及|[、和及与])(?![的为是在按于对由])[\u4e00-\u9fff]{2,16}?){1,20})"
                                r"(?:等)?(?=[；;。]|$)")
# … or by a lead, bold or not, counting them in parentheses, and after its colon its members in groups, one a
# semicolon ends, each opening with the city its places are in ("**三类地区（30个）**：望海市石塘县、渔山县；临川市丰乐县、永和县、
# 白鹭县；…。"), up to the sentence's end
DEFINED_BY_GROUPS_ZH = re.compile(r"(?m)^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(?P<name>[\u4e00-\u9fff]{2,8})"
                                  r"(?:[（(]共?\d+个[）)])?(?:\*\*|__)?[：:](?:\*\*|__)?[ \t]*(?P<members>[^。\n：:]+)")
# (a group's first place after the city it is in: "望海市石塘县" is 石塘县 of 望海市)
CITY_BEFORE_PLACE_ZH = re.compile(rf"^[{CJK_RANGE}]{{2,3}}市(?=[{CJK_RANGE}]{{2,}}[县区市旗])")
# (the separators of such members: "北郊区、南湖区、临空区以及北宁高新技术产业开发区"; a comma separates clauses, and a
# member is a name, never a phrase opening with a preposition: "由赡养人自行约定分摊比例和额度" lists nothing)
MEMBER_SEPARATORS_ZH = re.compile(r"以及|[、，,和及与]")
# … or by a paragraph opening with its name and saying, after "包括：", its members between semicolons ("**（三）丙类。**
# 适用于需要复位固定或者手术治疗…的伤情，主要包括：桡骨远端骨折；锁骨骨折；髌骨骨折；…等。")
NAMED_THEN_INCLUDES_ZH = re.compile(r"(?m)^[ \t]*(?:\*\*|__)?[ \t]*(?:[（(][一二三四五六七八九十]+[）)])?[ \t]*"
                                    r"(?P<name>[\u4e00-\u9fffA-Z]{2,8})[。．：:](?:\*\*|__)?[^\n。]*?(?<!不)包括[：:]"
                                    r"(?P<members>[^。\n]+)")
# … or by a sentence ending "X包括：" and the paragraphs after it listing its members ("本规则所称偏远地区包括：\n\n新疆
# 维吾尔自治区、西藏自治区、青海省全境；\n\n四川省的甘孜藏族自治州、阿坝藏族羌族自治州；"), up to a paragraph that is no list
INCLUDES_LINES_ZH = re.compile(r"(?P<name>[\u4e00-\u9fff]{2,8})(?:包括|包含|是指|指)[：:][ \t]*\n"
                               r"(?P<members>(?:[ \t]*\n|[ \t]*[\u4e00-\u9fff（）()、，,]{2,80}[；;。]?[ \t]*\n)+)")
# a province named before its city ("海南省三沙市": the member is the city)
PROVINCE_BEFORE_CITY_ZH = re.compile(rf"^[{CJK_RANGE}]{{2,3}}省(?=[{CJK_RANGE}]{{2,}}[市州县区盟])")
# a place's administrative ending, after which its first two characters are how it is spoken of ("甘孜藏族自治州": 甘孜)
PLACE_ENDING_ZH = re.compile(r"(?:省|市|县|区|州|盟|旗|自治区|自治州|地区)(?:全境)?$")
# … and an English list item naming a category and, after its colon, the proper names in it ("- **Band B:** Marlow
# Heath, Ashcombe, Fenwick Road and Dunmere Central.", "- Lower-Cost locations: Greystone, Carver Junction and …"):
# every member capitalised, two at least
_MEMBER_EN = r"[A-Z][\w'’-]*(?:[ \t]+[A-Z][\w'’-]*)*(?:[ \t]+\([^()\n]{1,40}\))?"
# (a list item's head naming the category, bold or not, up to its colon)
_ITEM_NAME_EN = (r"(?m)^[ \t]*[-*+][ \t]+(?:\*\*|__)?(?P<name>[A-Z][\w'’-]*(?:[ \t]+[\w'’-]+){0,3}?)"
                 r"[ \t]*(?:\*\*|__)?:(?:\*\*|__)?[ \t]+")
DEFINED_BY_LIST_EN = re.compile(_ITEM_NAME_EN + rf"(?P<members>{_MEMBER_EN}(?:(?:,[ \t]+(?:and[ \t]+)?|[ \t]+and[ \t]+){_MEMBER_EN})+)"
                                r"[ \t]*[.;]?[ \t]*$")
# … or naming a category and the numbered range of a series its members are in ("- **Tier 1:** job grades 1 to 4 (…);",
# "- **Tier 3:** job grades 8 and above"): the series' name (its last word), and the range's ends
DEFINED_BY_RANGE_EN = re.compile(_ITEM_NAME_EN + r"(?:[A-Za-z-]+[ \t]+){0,2}?(?P<series>[A-Za-z]+?)s?"
                                 r"[ \t]+(?P<lo>\d{1,4})(?:[ \t]*(?:to|through|-|–)[ \t]*(?P<hi>\d{1,4})|[ \t]+(?P<up>and|or)[ \t]+"
                                 r"(?:above|over|higher|up|more))\b(?=[ \t]*(?:[(;.,]|$))")
MEMBER_SEPARATORS_EN = re.compile(r",\s+(?:and\s+)?|\s+and\s+")
# … or a lead, bold or not, in a list item or opening a paragraph, naming a category (its name before any dash of
# what it is) and after its colon the things in it, separated by semicolons ("**Class C — Personal Services —
# Standard:** hair salons and barber shops; nail salons; …", "- **Group 2:** Canada (Corvane Canada ULC); Ireland (…)")
DEFINED_BY_SEMICOLONS_EN = re.compile(
    r"(?m)^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(?P<name>[A-Z][\w'’-]*(?:[ \t]+[\w'’-]+){0,3}?)(?:[ \t]+[—–][^*\n:]*)?"
    r"(?:\*\*|__)?:(?:\*\*|__)?[ \t]+(?P<members>[^\n;:]+(?:;[ \t]*[^\n;:]+)+?)[ \t]*[.;]?[ \t]*$")
# a table cell listing things (three at least: "Riverside Park; Alder Beach Park; Harbour Green", "龙潭镇、石门乡、…"; a
# Chinese comma between groups of a list, "集团部门总经理、总监，子公司总经理，首席专家")
# English names between commas, each capitalised and short, the last maybe after "and": "Boston, Washington DC, Toronto,
# Los Angeles, Chicago" (not a sentence, "Business, with Divisional Director approval; otherwise premium economy")
# a Chinese column header saying its cells are categories ("区域类别", "现行类别", "医疗机构级别"): a cell under it names
# a category by what sets it apart ("三类", "二级"), without the words its kind of categories share ("区域", "病种")
CATEGORY_HEADER_ZH = re.compile(r"类别|级别|等级|类型|档次|分类")
LISTING_CELL = re.compile(r"^(?=[^;；、]*[;；、])[^;；、，]+(?:[;；、，][^;；、，]+){2,}$"
                          r"|^[A-Z][\w.'’-]*(?:\s[A-Z][\w.'’-]*){0,3}(?:(?:,\s+|,?\s+and\s+)[A-Z][\w.'’-]*(?:\s[A-Z][\w.'’-]*){0,3}){2,}$")
LISTING_SEPARATORS = re.compile(r"\s*[;；、，]\s*")  # (a Chinese comma between groups: "部门经理、主管，子公司副总经理")
# A hospital's grade as questions shorten it ("三甲医院" for 三级甲等): its level is the numeral
GRADE_ZH = re.compile(r"([一二三])[甲乙丙](?=医院|医疗|定点|[的，,。？?、\s]|$)")
# Money as it is spoken ("每年交3000块钱", "五百块"): 块 after a figure is 元; not after a vague one ("几十块钱", "十几块")
# nor a lone 一 ("一块去": together)
SPOKEN_YUAN = re.compile(r"(?<![几多余来\d零〇一二两三四五六七八九十百千万.])(?!一块(?!钱))"
                         r"(\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百千万]+)块钱?")


# A household's size as it is spoken ("一家三口", "家里4口人", "三口之家", "老两口", "两个人"): so many people, as a document's
# 家庭人口 rows write it ("3人家庭", "2人")
SPOKEN_HOUSEHOLD = re.compile(r"(?:(?<=一家)|(?<=全家)|(?<=家里)|(?<=家中))([一二两三四五六七八九十]|\d{1,2})口人?"
                              r"|(?<![\d零〇一二两三四五六七八九十几])([一二两三四五六七八九十]|\d{1,2})口(?:人|之家)|[老小]两口|两口子"
                              # (… or so many people in words: "我和老伴两个人", "两人户", "一个人住")
                              r"|(?<![\d零〇一二两三四五六七八九十几百千万第每另这那哪])(?<!任何)(?<!其中)"
                              r"([一二两三四五六七八九十])个?人(?![次均民])")
_NUMERALS_ZH = {c: i for i, c in enumerate("零一二三四五六七八九十")} | {"两": 2}


def _household(m: re.Match) -> str:
    n = m.group(1) or m.group(2) or m.group(3)
    return f"{_NUMERALS_ZH.get(n, n) if n else 2}人"


# Money in thousands or millions as it is spoken ("a tender worth about $400k", "I earn £38k", "$1.5m"): the sum in
# full, as a document writes it; not a measure ("5k run", "10m")
SPOKEN_THOUSANDS = re.compile(r"([$£€])\s?(\d+(?:\.\d+)?)\s?([kKmM])\b")


def _in_full(m: re.Match) -> str:
    value = Decimal(m.group(2)) * (1000 if m.group(3) in "kK" else 1_000_000)
    return f"{m.group(1)}{value:,.2f}".removesuffix(".00")


def as_written(question: str) -> str:
    """A question's spoken money and household size as a document writes them ("3000块钱" → "3000元", "$400k" →
    "$400,000", "一家三口" → "一家3人"), for reading its figures."""
    return SPOKEN_HOUSEHOLD.sub(_household, SPOKEN_THOUSANDS.sub(_in_full, SPOKEN_YUAN.sub(r"\1元", question)))


# A statistic of what happened, not a rule's figure ("实际住宿费中位数", "平均数", "the median claim"): it answers only a
# question asking for one
STATISTIC = re.compile(r"中位数|平均数|平均值|均值|\b(?:median|mean)\b", re.IGNORECASE)
# … and a section reporting what happened ("附件14 2024年度分县（区）失业保险待遇发放情况", "2024年度运行情况", "Programme
# performance to date", "Programme Statistics"): its figures are counts and sums of the past, no rule's
STATISTIC_SECTION = re.compile(r"(?:运行|发放|执行|业务|支出|享受|办理|缴存|提取|贷款|收支|保障)情况|情况分析|统计|"
                               r"\b(?:statistics|performance)\b", re.IGNORECASE)
CATCH_ALL = re.compile(rf"(?:其他|其它)(?P<zh>[{CJK_RANGE}]{{1,4}})|\b(?:all\s+|any\s+)?other\s+(?P<en>[A-Za-z]+)",
                       re.IGNORECASE)
ASKS_SEVERAL = re.compile(rf"分别|各自|各[类级项个种]|每[个种类一]|哪些|(?<=[{CJK_RANGE}])[和与](?=[{CJK_RANGE}])|"
                          r"\b(?:each|every|respectively|both|all|are|which|list)\b", re.IGNORECASE)
# a predicate that leads into its value with a comparison ("确诊时已年满" 60周岁, "If availability is below" 95.0%)
# makes the value the threshold of a condition: from what figure on something holds, not how much of it there is
THRESHOLD_PREDICATE = re.compile(r"(?:超过|超出|年满|不满|未满|满|不足|低于|高于|达到|不低于|不高于|\b(?:below|above|"
                                 r"exceeds?|exceeding|over|under|less\s+than|more\s+than|at\s+least|at\s+most|"
                                 r"reach(?:es)?|falls?\s+(?:below|under)))\s*$", re.IGNORECASE)
# what kind of quantity a question part asks for, when it says so ("要过多少天", "what percentage"): a value of
# another dimension cannot answer it ("多少天之内报销" is not answered by 2万元). Dimensions as in text/quantity.py.
_WHAT_IS = (r"\bwhat(?:'s|’s|\s+is|\s+are|\s+was|\s+were)\s+(?:the\s+|your\s+|a\s+)?(?:[a-z-]+\s+){0,3}")
_NOT_A_SHARE = r"(?!\s+(?:rate|ratio|percentage|period|limit|cap))"
_DAY_ASKED_ZH = re.compile(r"哪一?天|几月几[日号]|什么日期|几号")
ASKED_DIMENSIONS = (
    ("time", re.compile(r"多少(?:个)?(?:天|日|工作日|月|周|星期|年|小时|晚)|几(?:个)?(?:天|日|工作日|月|周|星期|年|小时|晚)|多长时间|多久|"
                        # (a word or two may say which days: "how many paid days", "how many annual leave days")
                        # (a night is a day's stay, as quantities read "60 nights")
                        r"\bhow\s+(?:long|soon|many\s+(?:[a-z-]+\s+){0,2}?(?:days|weeks|months|years|hours|nights))\b",
                        re.IGNORECASE)),
    # "合同金额的多少", "how much of the premium": a share of something; "报销比例是多少" when it asks that alone
    # (not "起付线和报销比例是多少"); "按住宿标准的百分之多少", "按标准的多少算": a share of what it is counted by
    ("percent", re.compile(r"百分之(?:几|多少)|[按照][^，,。；;？?]{1,12}的多少|百分比|多少比例|多大比例|什么比例|^[^和及与、]*(?:比例|[利费税比]率)(?:是|为|有)?多少|几成|几折|"
                           r"的多少(?=[？?。]|$)|"
                           r"\bwhat\s+(?:percentage|percent|share|proportion)\b|\bhow\s+much\s+of\b|\binterest\s+rates?\b|"
                           r"\bpercentage\b(?!\s+points?)", re.IGNORECASE)),
    # (what a fee, a charge or a price is: "what's the extra daily charge", "what is the monthly fee for …")
    # (… or what is paid: "what weekly rate will I be paid")
    # ("how much of that can go on complementary treatment": an amount of a limit, or a share of it)
    ("money", re.compile(r"多少钱|多少元|金额(?!的)|\bhow\s+many\s+(?:dollars|pounds|euros)\b|\bhow\s+much\s+of\b|"
                         r"\bwhat\s+(?!(?:day|date|time|month|week|year)s?\b)(?:[a-z-]+\s+){0,3}(?:will|would|do|does|did|am|is|"
                         r"are|was|were)\s+(?:i|we|you|they|he|she)\s+be\s+paid\b|" + _WHAT_IS
                         + r"(?:fees?|charges?|costs?|prices?|premiums?|fines?|penalty|penalties|rent)\b" + _NOT_A_SHARE,
                         re.IGNORECASE)),
    # … a fee, a charge or a penalty may be a share of what it is charged on ("Late payment charge: 10% of the
    # past-due balance", "a foreign transaction fee of 3%"); a price, a premium or a rent is not
    ("percent", re.compile(_WHAT_IS + r"(?:fees?|charges?|surcharges?|fines?|penalty|penalties|commissions?)\b"
                           + _NOT_A_SHARE, re.IGNORECASE)),
    ("age", re.compile(r"多少岁|几岁|\bhow\s+old\b|\bwhat\s+age\b", re.IGNORECASE)),
    # (how many times a thing may be had: "一年最多能领几次", "how many times can I claim")
    ("count", re.compile(r"多少次|几次|\bhow\s+many\s+times\b", re.IGNORECASE)),
    # a day asked ("最晚哪天之前要申请"): a date, or a day of the month the document counts as days ("每月15日前")
    ("date", _DAY_ASKED_ZH),
    ("time", _DAY_ASKED_ZH),
    ("area", re.compile(r"多少平(?:方)?米|多少平方|几平(?:方)?米|多大面积|面积(?:是|有|为)?多(?:少|大)|\bhow\s+many\s+square\b|"
                        r"\b(?:how\s+much|what)\s+(?:floor\s+)?(?:area|square\s+footage)\b", re.IGNORECASE)),
    ("weight", re.compile(r"多少(?:公斤|千克|吨)|多重|\bhow\s+(?:heavy|many\s+(?:kilograms|kg|pounds|lbs|tonnes))\b",
                          re.IGNORECASE)),
    ("volume", re.compile(r"多少(?:立方米?|方水|升)|\bhow\s+many\s+(?:gallons|litres|liters|cubic|ccf)\b", re.IGNORECASE)),
)
# Which end of a range a word names: the most (最多, maximum, capped; 最长, the longest period) or the least (最低,
# minimum, at least; 最短)
# the words a document gives each end by, as a search for a question asking that end reads them
MOST_WORDS = "最多 最高 最长 最大 上限 封顶 限额 maximum highest longest largest"
LEAST_WORDS = "最少 最低 最短 最小 下限 minimum lowest shortest smallest"
# ("add up to": what a sum reaches at most, its verb a word of the bound, not of what is asked; not "up to" a place,
# "drive up to Vancouver")
# (a 限额 is read as the most by a search alone, MOST_WORDS: a label "年度救助的限额" read as the most had outweighed the
# 报销比例 a question asked beside its 封顶线)
BOUND_MOST = re.compile(r"最多|最高|最长|最大|上限|封顶|不超过|不得超过|\b(?:most|maximum|max|highest|longest|largest|oldest|"
                        r"(?:add(?:s|ed|ing)?\s+)?up\s+to(?!\s+(?-i:[A-Z]))|"
                        r"caps?|capped|ceiling|no\s+more\s+than)\b", re.IGNORECASE)
BOUND_LEAST = re.compile(r"最少|最低|最短|最小|下限|不低于|不少于|至少|\b(?:least|minimum|min|lowest|shortest|smallest|youngest|floor|"
                         r"no\s+less\s+than)\b", re.IGNORECASE)
# Where a question lists the things it asks about ("X, Y and Z", "甲、乙和丙"): not a comma between clauses ("If we
# leave early, what …", "请一位副教授来参加评审会，…")
QUESTION_ITEMS = re.compile(r"、|以及|[和及与]|\s+(?:and|or)\s+|,\s+(?=[^,?]*\s(?:and|or)\s)")
# A part asking again what the part before it asked ("住进ICU每天又是多少？")
ASKED_AGAIN = re.compile(r"又(?:是|有|能|可以|该|要)?多少")
# What is paid, asked with no unit ("每天给多少", "能报多少", "how much will you pay"): an amount or a share of one,
# never a period or a count
# What says a bare number's unit, by dimension: a header, label or quote naming it ("日限额（元）", "咨询费（元/人天）",
# "students aged 17 through 23"); a bare number with none of these is a count, a clause or an address, not an amount
_MONEY_MARK = r"[元$£€¥]|\b(?:dollars?|usd|rmb|yuan|cny|eur|gbp|pounds?|euros?)\b"
UNIT_MARKS = {
    "money": re.compile(_MONEY_MARK, re.IGNORECASE),
    "rate": re.compile(_MONEY_MARK, re.IGNORECASE),
    "percent": re.compile(r"[%％成]|\b(?:percent|percentage|per\s+cent|rate|ratio|share|proportion)\b|比例|比率|率",
                          re.IGNORECASE),
    "time": re.compile(r"[天日月年周时期]|\b(?:days?|weeks?|months?|years?|hours?|minutes?|period|notice|term)\b",
                       re.IGNORECASE),
    "age": re.compile(r"[岁]|\b(?:age|aged|ages|old|years?)\b|年龄|年满", re.IGNORECASE),
    "area": re.compile(r"平方|平米|面积|㎡|\b(?:square|sq\.?|acres?|hectares?|area)\b", re.IGNORECASE),
    "weight": re.compile(r"公斤|千克|吨|重量|\b(?:kg|kilograms?|lbs?|tonnes?|weight)\b", re.IGNORECASE),
    "volume": re.compile(r"立方|\b(?:ccf|gallons?|lit(?:er|re)s?|cubic|volume)\b", re.IGNORECASE),
    "count": re.compile(r"次|\b(?:times|number\s+of)\b", re.IGNORECASE),
}
ASKED_PAYMENT = re.compile(r"(?:给|付|赔|报|补|拿|发|领|交|缴|退|扣|救)(?:付|偿|销|助|到|放|取|纳|还|除)?多少(?![个天日周月年岁次人件小])|"
                           # "how much" asks an amount unless a noun follows ("how much notice": what notice is
                           # given in), which is then the measure asked
                           r"\bhow\s+much\b(?=\s*(?:[?.,;!]|$|(?:do|does|did|is|are|was|were|will|would|can|could|"
                           r"should|shall|may|might|must|has|have|had|i|we|you|they|he|she|it|my|our|your|their|his|"
                           r"her|the|a|an|this|that|money|cash|in|more|extra|back|per|each|every|for|to|at|on|if|"
                           r"when|altogether|total|overall|maximum|max|at\s+most|gets?|got|go|goes|comes?|costs?|pays?|paid|charged?|"
                           r"charges|adds?|added|owed?|owes|remains?|left)\b))|"
                           # (the most or least a payer pays: "what's the most they'll pay per night", "the most they'll
                           # put in")
                           r"\bthe\s+(?:most|least|maximum|minimum)\s+(?!(?:notice|period|time|number|length|days?|weeks?|"
                           r"months?|years?|hours?|nights?)\b)(?:that\s+)?(?:[a-z’']+\s+){0,3}?"
                           r"(?:pay|reimburse|refund|contribute|put\s+(?:in|towards))\b", re.IGNORECASE)
FUNCTION_ZH = frozenset("的为是在按于对由")
CONJUNCTIONS_ZH = frozenset("和与及或")
NUMERALS_ZH = frozenset("零〇一二两三四五六七八九十百千万亿")
# the clitics an English word may end in after an apostrophe ("what's", "Master's", "we're"): no word of their own
CLITICS_EN = ("s", "re", "ve", "ll", "d", "t", "m")
# a clause that opens with one of these is a condition or a circumstance, not the entity a value belongs to
CONDITION_OPENERS_ZH = FUNCTION_ZH | frozenset("如若凡自当经")
# … and one that ends with one of these is a condition or a time ("…的", "一个自然年度内", "出院后"), not a topic
CONDITION_ENDINGS_ZH = ("的", "内", "时", "后", "前", "起", "中")
# Words an English run-in title ("7.1 Low-income assistance. …") has none of: a verb, a pronoun (a first sentence
# that says something, "The fee is waived."), nor, at its end, a word that needs more after it
NOT_IN_TITLE_EN = frozenset({
    "is", "are", "was", "were", "be", "been", "will", "shall", "must", "may", "can", "could", "would", "should",
    "has", "have", "had", "do", "does", "did", "not", "no", "it", "this", "these", "those", "they", "we", "you", "i",
    "he", "she", "our", "your", "their", "its", "apply", "applies", "see", "means", "includes", "ends", "begins"})
NOT_LAST_IN_TITLE_EN = frozenset({"of", "for", "to", "in", "on", "at", "by", "with", "and", "or", "the", "a", "an"})
# English words that open a clause of condition or time ("If the tenant…", "When the lease renews", "Once approved")
CLAUSE_OPENERS_EN = ("if", "when", "where", "whenever", "unless", "once", "after", "before", "while", "since",
                     "because")
# English phrases of how, not what: "at the same time", "at one time", "at once" say simultaneously, whatever is
# asked ("How many books can I have on hold at the same time?" asks of holds, not of a time)
# Words an English question asks an amount by ("What will it cost?", "what do I pay?"), as 多少钱 asks one: no word of
# what the amount is of (as stemmed)
AMOUNT_ASKED_EN = frozenset({"cost", "pay", "charg", "pric", "spend"})
HOW_PHRASES_EN = re.compile(r"\bat\s+(?:the\s+same|one|a|any(?:\s+one)?)\s+time\b|\bat\s+once\b", re.IGNORECASE)
# … and Chinese phrases asking how long, when or what share, which English asks by filler words ("how long", "when",
# "what percentage"): 多长时间 asks a length of time, as 多少钱 asks an amount, and names no 时间 the document speaks
# of; 百分之几 names no 百分 of it
HOW_PHRASES_ZH = re.compile(r"多长时间|多少时间|多长|多久|什么时候|何时|百分之几|百分之多少|多少块钱|多少钱")
# … as is one asking whether ("总金额有没有上限", "能不能报"): 没有 is no word of what it asks
WHETHER_PHRASES_ZH = re.compile(r"有没有|有无|是否|可不可以|" + A_NOT_A)
# A value a change replaced: its table column's header names the former rule ("原规定（V3.2）", "Previous rate"), or a
# clause names it as what the change is from ("由相当于2个月租金降为相当于1个月租金", "increased from $40 to $45")
# a section a note marks as no longer in force ("附件15 2019版办法所附职业资格证书目录（已废止，仅供参照）", "Schedule 3
# (repealed)"): what it states is a former rule; a heading on the topic ("保单失效与复效") is no such note
REPEALED_NOTE = re.compile(r"[（(][^（）()]*(?:已废止|已失效|废止|repealed|superseded|no longer in (?:force|effect))"
                           r"[^（）()]*[）)]", re.IGNORECASE)
# a numbered article of a Chinese rule and the title it gives (beside one run in before a full stop, "第七条 门急诊医疗保险金。
# 被保险人…", which the outline heads it by) in brackets ("第二十三条【一次性工伤医疗补助金】 一次性…", "第十条（护理费）…") or before a space ("第十五条　年度资助上限 每名…"):
# what its paragraphs, lists and tables are about, as a heading's would be; not a note on the article ("第十条（2025年
# 修订）"), an item's numeral ("（一）") nor a first sentence ("第五条 本办法自发布之日起施行。")
ARTICLE_TITLE = re.compile(r"(?P<number>第[零〇一二两三四五六七八九十百千\d]+条(?:之[一二三四五六七八九十]+)?)[ \t\u3000]*"
                           r"(?:【(?P<bracketed>[^【】\n，,。；;\d]{2,20})】|[（(](?P<parenthesized>[^（）()\n，,。；;\d]{2,20})[）)]"
                           r"|(?P<spaced>[\u4e00-\u9fff、]{2,12})[ \t\u3000]+(?=\S))?")
# a former rule the document names by a short name ("《澜江省工伤保险待遇计发暂行办法》（…，以下简称“原办法”）同时废止",
# "《…差旅费管理办法（2022版）》（…，以下简称“2022版办法”）"): former when the name says so (原, 旧, an edition) or its
# sentence says the document revises or repeals it
FORMER_DOCUMENT = re.compile(r"《[^》\n]{2,60}》[^。；;\n]{0,40}?以下简称[“\"「]?(?P<name>[^”\"」，,）)。\s]{2,12})[”\"」]?")
FORMER_NAME = re.compile(r"^(?:原|旧|老)|\d{4}年?版")
REVISES = re.compile(r"修订|废止|替代|取代|代替|修改")
# … and in English, a defined name in parentheses ('the Relocation Policy 2021 (the "2021 Policy")'): former when the
# name says so ('the "Previous Schedule"') or its sentence replaces, supersedes or repeals it — the verb before the name
# ('This Policy replaces the Relocation Policy 2021 (the "2021 Policy")') or after it ('… (the "2021 Policy") is
# hereby repealed'); not the document's own name defined before the verb ('This Policy (the "Policy") replaces …')
# nor what replaces ('… is replaced by the Zonal Scheme (the "Scheme")', <new>)
FORMER_DOCUMENT_EN = re.compile(r"\((?:hereinafter\s+)?(?:(?:referred\s+to\s+)?as\s+)?(?:the\s+)?[\"“'‘](?P<name>[^\"”'’\n()]{2,40})"
                                r"[\"”'’]\)")
FORMER_NAME_EN = re.compile(r"^(?:the\s+)?(?:previous|former|old|prior|original|superseded|outgoing)\b", re.IGNORECASE)
REVISES_EN = re.compile(r"\b(?:replac|supersed|repeal|revok|rescind)\w*(?P<new>.*\b(?:with|by|in\s+favou?r\s+of)\b)?",
                        re.IGNORECASE)
# a document's label naming the edition it replaces ("**Supersedes:** Version 3.1 (effective 1 April 2022)", "Replaces:
# Policy HR-12 v2"): that name is its former rule's
SUPERSEDES_LABEL = re.compile(r"^[\s*_>#-]*(?:supersedes|replaces)[\s*_]*:[\s*_]*(?P<name>[^\n(（;；,，]{2,40}?)"
                              r"[\s*_]*(?:[（(;；,，]|$)", re.IGNORECASE | re.MULTILINE)
REVISED_AFTER_EN = re.compile(r"\s*(?:is|are|was|were|shall\s+be|will\s+be)\s+(?:hereby\s+)?(?:repealed|revoked|superseded|"
                              r"replaced|rescinded|withdrawn)\b", re.IGNORECASE)
# a statement of the day the document's rule takes effect ("本办法自2025年1月1日起施行", "施行日期：2025年1月1日", "The 2025 Tariff
# applies to all permits … on or after 1 April 2025", "Effective date: 1 March 2025"); <label> the form that gives the
# day after a colon, <OWN_RULE> the words naming the document's own rule (beside a former rule's "原办法自2016年施行以来"
# or a later step's "2028年1月1日起执行")
TAKES_EFFECT = re.compile(r"施行|实施|生效|起执行|\b(?:effective|in\s+force|into\s+(?:force|effect)|appl(?:y|ies)\s+(?:to|from)|"
                          r"runs?\s+from)\b",
                          re.IGNORECASE)
OWN_RULE = re.compile(r"本(?:办法|制度|规定|细则|规则|条例|方案|标准|通知|条款|合同|协议)|\bth(?:is|ese)\s+(?:[\w-]+\s+){0,2}?"
                      r"(?:policy|wording|tariff|schedule|rules?|agreement|terms|plan|by-?law|code|procedures?|guidelines?|"
                      r"handbook|edition|version|document|notice|regulations?)\b", re.IGNORECASE)
EFFECTIVE_LABEL = re.compile(r"(?:施行|实施|生效|执行)日期\s*[：:]|\b(?:effective|commencement)\s+date\s*[：:.]", re.IGNORECASE)
# … and a clause's aside giving a former figure ("（原为6个月）", "(previously £45)", "(formerly 60 days)")
FORMER_ASIDE = re.compile(r"原为|原标准|原规定|旧标准|调整前|修订前|\b(?:previously|formerly|was)\b", re.IGNORECASE)
# … and a clause saying what a figure formerly was, just before it ("…的月度住房补贴原为每月3000元", "previously £45")
FORMERLY = re.compile(r"(?:原为|原来为|原是)[^，,。；;\d]{0,4}$|\b(?:previously|formerly)\s+$", re.IGNORECASE)
# … and the words naming the document's own rule beside it ("| 城市类别 | 本制度 | 2022版办法 |")
CURRENT_RULE = re.compile(r"本办法|本制度|本规定|本细则|现行|现规定|新标准|\b(?:current|new)\b", re.IGNORECASE)
# … and a question asking what held before the change, naming no rule ("before the new rates took effect", "新标准实施前")
FORMER_ASKED = re.compile(r"\b(?:before|prior\s+to)\s+(?:the\s+)?(?:new|current|revised|updated|latest)\s+(?:[\w-]+\s+){0,2}?"
                          r"(?:took|take|takes|came|come|went|go|goes)\s+(?:effect|into\s+(?:effect|force))\b|"
                          r"(?:新|现行)(?:标准|办法|规定|制度|政策)(?:施行|实施|执行|生效)(?:之)?前", re.IGNORECASE)
# … or asks what a figure was as well as what it is now ("what did I pay for it last year?", "以前是多少？", "原来全程多少钱？",
# "what was it before the increase?"): the former figures answer it beside the current ones
FORMER_SAID = re.compile(r"\b(?:what|how\s+much)\b[^?.]{0,60}\blast\s+year\b|\bused\s+to\s+(?:be|cost|pay|charge|get)\b|"
                         r"\b(?:previously|originally)\b|"
                         r"\bbefore\s+the\s+(?:[\w-]+\s+)?(?:increase|rise|change|review|update)s?\b|"
                         r"\bwhat\s+(?:was|were|did)\b[^?.]{0,40}\bbefore\b|"
                         # (not the former's share of a base, "按原来工资的多少", nor a count of narrated months, "之前那几个月")
                         r"(?:以前|原来|之前|去年|过去)[^，。？！,?!几]{0,6}?(?<!的)多少|"
                         r"(?:调价|调整|修订|涨价|降价|提标)(?:以|之)?前", re.IGNORECASE)
# (not an age's "old": "my 7-year-old", "aged 18 years old")
FORMER_HEADER = re.compile(r"原规定|原标准|原政策|修订前|调整前|旧标准|\b(?:previous|former|prior)\b|(?<![-‐])(?<!year )(?<!years )\bold\b",
                           re.IGNORECASE)
CHANGED_FROM = re.compile(r"(?:由|从)[^，。；;,.]{0,10}$|\b(?:increas|rais|reduc|lower|chang|decreas|cut|adjust|mov)\w*"
                          r"\s+(?:[\w'’-]+\s+){0,4}?from\s+$", re.IGNORECASE)
CHANGED_TO = re.compile(r"^[^，。；;,.]{0,12}?(?:降为|降至|降到|调整为|调整至|调整到|提高到|提高至|提高为|增加到|增加至|上调为|上调至|"
                        r"下调为|下调至|改为|变为|变更为)|^\s*(?:per\s+\w+\s+)?to\b", re.IGNORECASE)
# A worked example or a question the document poses (an FAQ's "问：…？", "Q: …?") states a case's figures, not the
# rule's: what opens such a paragraph ("示例一：", "例2：", "Example 3:", "Worked example —"), a heading over examples
# ("附件 差旅费报销计算示例", "Examples"), and what opens a posed question
EXAMPLE_OPENER = re.compile(r"^[\s*_#>]*(?:(?:计算)?示例|举例|案例|例)\s*[一二三四五六七八九十\d]*\s*[*_]*\s*[：:．.、]"
                            r"|^[\s*_#>]*(?:(?:计算)?示例|案例)\s*[一二三四五六七八九十\d]+"
                            r"|^[\s*_#>]*(?:worked\s+)?example\s*[A-Z\d]*\s*[*_]*\s*[:.—–-]", re.IGNORECASE)
EXAMPLE_HEADING = re.compile(r"示例|举例|案例|^(?:(?:appendix|annex|schedule|exhibit|section|part)\s+[\w.]+\s*[—–:.-]?\s*"
                             r"|\d+(?:\.\d+)*[.)]?\s+)?"
                             r"(?:worked\s+|illustrative\s+)?examples?(?:\s+(?:of\s+)?(?:calculations?|computations?|"
                             r"bills?))?\s*$", re.IGNORECASE)
POSED_QUESTION = re.compile(r"^[\s*_#>]*(?:问|Q)\d*\s*[*_]*\s*[：:.]", re.IGNORECASE)
# … the mark opening such a question or its answer ("问3：", "答：", "Q:", "A:"), which names no one
REPLY_MARK = re.compile(r"(?:问|答|Q|A)\d*", re.IGNORECASE)
# … and the mark before the number of a question a document poses ("问4：同一种病…？", "Q12. Can I …?"): the number is
# its item's, no count
POSED_NUMBER_BEFORE = re.compile(r"(?:(?<![\u4e00-\u9fff])问|问题|(?<![A-Za-z])Q)\s*$")
# Chinese modals, light verbs and particles that, standing alone as a word of a question, say how it asks ("能拿多少",
# "可以领", "要交", "会给"), when ("买了", "交过") or where ("小区里"), as English "can", "get", "did", "in" do: no part
# of what it asks
ASKING_VERBS_ZH = frozenset({"能", "可", "会", "要", "想", "得", "拿", "领", "给", "让", "把", "被", "就", "才", "该", "都",
                             "也", "可以", "能够", "了", "过", "着", "里", "掉"})
# … and a word of two characters the segmenter keeps whole though its second is such a particle: a place and the
# locative 里 ("县里", "村里", "家里"), a verb and the complement 掉 ("扣掉", "花掉") are the first character and how
# the question asks
PARTICLE_ENDINGS_ZH = frozenset("里掉")
# An English word negated ("no contract", "without a contract", "non-resident"): the case without it, another term
# than the word ("12-month contract" is no answer to "month to month without a contract"); not a bound ("no more
# than", "no later than")
NEGATED_EN = re.compile(r"\b(?:no|non|without|rather\s+than|instead\s+of)(?:\s+(?:a|an|the|any))?[\s-]+"
                        r"(?!(?:more|less|later|earlier|fewer|longer|sooner|than)\b)([a-z][a-z'’]+)", re.IGNORECASE)
# The period a Chinese measure is counted over ("事假每年累计不得超过15天", "单次不得超过5天"), however it is worded: a
# question asking "一年最多能请几天" asks what the document counts 每年 or 年度. Each is one name (weighing as a word),
# and the phrase none of its bigrams. A figure before or after it makes it a length ("工作满一年", "一年半") or an
# ordinal ("第一次", "头一年", "上一年"), not a period; 每 says a period whatever stands before it ("原则上每周").
# (English needs none: "weekly" is "week" differently derived, as cover reads words.)
_NOT_A_PERIOD_BEFORE_ZH = r"(?<![满第头近过已才再又上下前超到逾零〇一二两三四五六七八九十百千\d])"
_NOT_A_PERIOD_AFTER_ZH = r"(?!以上|以下|半|多(?!少)|后|前|期|性|零)"  # (一年多 is over a year; 一次多少钱 asks per time)


def _period_zh(every: str, other: str) -> re.Pattern:
    """A period's phrases: those saying 每 (every), and the others where no figure or ordinal stands before them."""
    return re.compile(rf"(?:每一?(?:{every})|{_NOT_A_PERIOD_BEFORE_ZH}(?:{other})){_NOT_A_PERIOD_AFTER_ZH}")


PERIODS_ZH = (
    ("〈每年〉", _period_zh(r"年度?|个年度", r"全年|年度|一年(?:内|里|中)?|[/／]年|年(?=标准|均|薪)")),
    ("〈每月〉", _period_zh(r"个?月", r"月度|按月|一个月|[/／]月|月(?=标准|均|薪|限额)")),
    ("〈每周〉", _period_zh(r"(?:周|个?星期)", r"一周|一个?星期|[/／]周")),
    # (单日 as 单次 is one: "单日封顶"; "停一整天" a whole day)
    ("〈每天〉", _period_zh(r"[天日]", r"按日|日均|单日|一?整天|一天(?:内|里)?|[/／]人?[天日]|日(?=标准|薪|限额)")),
    # (a night's lodging: "每晚", "一晚", a rate "元/人·晚", "元/间·晚")
    ("〈每晚〉", _period_zh(r"晚", r"一晚|[/／](?:人|间)?[·・/／]?晚")),
    ("〈每次〉", _period_zh(r"次", r"单次|一次|[/／]次")),
    ("〈每笔〉", _period_zh(r"笔", r"单笔|一笔|[/／]笔")),
)
# … and an English one's, named as no word is (annual ~ yearly ~ per annum ~ a year ~ the whole year; monthly ~ per month ~ each month),
# the periods a measure is counted over; not a length of time ("within a year", "a year ago", "a month's notice"),
# which "a" or "one" before a period says in a duration
_NOT_A_PERIOD_BEFORE_EN = r"(?<!\bhalf\s)(?<!\bwithin\s)(?<!\bafter\s)(?<!\bfor\s)(?<!\bthan\s)(?<!\bover\s)(?<!\bleast\s)(?<!\bto\s)"
_NOT_A_PERIOD_AFTER_EN = r"(?!['’]s|\s*\d|\s+(?:ago|later|before|after|earlier|old|from|or\s+(?:more|less|longer)))\b"


# (a word naming which days count between, "per Rental Day", "each calendar month"; not "an extra day", a length)
_PERIOD_KIND_EN = r"(?:(?-i:[A-Z][a-z]+)|calendar|working|business|billing|rental|hire)"


def _period_en(adjective: str, noun: str) -> re.Pattern:
    """A period's English phrases: its adjectives ("monthly"), the noun after a or every, a word between at most
    ("a month", "per month", "per Rental Day", "each calendar month") where that is no length of time, and the noun
    to itself ("month to month", rolling)."""
    return re.compile(rf"\b(?:{adjective}|{_NOT_A_PERIOD_BEFORE_EN}(?:a|an|per|each|every)\s+(?:{_PERIOD_KIND_EN}\s+)?{noun}"
                      rf"{_NOT_A_PERIOD_AFTER_EN}|{noun}[\s-]+to[\s-]+{noun})\b", re.IGNORECASE)


PERIODS_EN = (
    ("@year", _period_en(r"annual(?:ly)?|yearly|per\s+annum|(?:the|a)\s+(?:whole|full|entire)\s+year", "year")),
    ("@month", _period_en(r"monthly", "month")),
    ("@week", _period_en(r"weekly", "week")),
    ("@day", _period_en(r"daily", "day")),
    ("@night", _period_en(r"nightly", "night")),
    ("@hour", _period_en(r"hourly", "hour")),
)
# Characters of a Chinese question that are no word of what it asks (第: an ordinal's mark, "第一次" names no 第二套)
QUERY_STOP_ZH = frozenset("的是在为了第") | CONJUNCTIONS_ZH | frozenset("请问多少几分别哪些什么吗呢")
# Words a Chinese question narrates with, as an English one with "after", "before", "back" (QUESTION_FILLER_EN): when
# ("出差回来以后", "退休之前"), not what ("以后" a formal document hardly writes is no rare word of what is asked)
NARRATION_ZH = frozenset({"以后", "之后", "以前", "之前", "以来", "回来", "回去", "听说",
                          # (… and if, as English "if": "如果2025年3月就去递交申请")
                          "如果", "假如", "要是", "万一",
                          # (… and when the narrated case was: "2024年那时候", "当时")
                          "时候", "当时"})
# Units of a name (see entities.units) that do not tell one list item from another ("up to", "will be").
FUNCTION_UNITS = FUNCTION_ZH | frozenset("至每其该") | {"up", "be", "will", "shall", "may", "can"}
# Where a subject's CJK modifiers end, reading leftwards: punctuation, function characters, conjunctions.
SUBJECT_BOUNDARY_ZH = FUNCTION_ZH | CONJUNCTIONS_ZH | frozenset("，、；：。！？（）()《》“”")

# ---- changes and caps -----------------------------------------------------------------------------------------
# A change ("提高1000元", "reduced by 10%") is not the level itself; a cap ("不超过500元") is a level, not a change.
CHANGE_ZH = ("提高", "降低", "增加", "减少", "上调", "下调", "上浮", "下浮")
CHANGE_VERBS_EN = ("increased", "reduced", "raised", "lowered", "decreased", "cut")
CHANGE_NOUNS_EN = ("increase", "increases", "decrease", "decreases", "reduction")
CAP_ZH = ("不超过",)
# English as whole words: "appraised" is not "raised", "execution" is not "cut", a "cut-off date" is no change.
CHANGE = re.compile("|".join(CHANGE_ZH) + r"|\b(?:" + "|".join(CHANGE_VERBS_EN + CHANGE_NOUNS_EN) + r")\b(?!-)",
                    re.IGNORECASE)
# The words just before a value that make it a change: "提高了1000元", "reduced by 10%", searched within CHANGE_REACH
# characters before it ("is increased by £2.50").
CHANGE_REACH = 16
CHANGE_BEFORE = re.compile("(?:" + "|".join(CHANGE_ZH) + r")(?:了)?$|\b(?:" + "|".join(CHANGE_VERBS_EN)
                           + r")\s+(?:by\s+)?$", re.IGNORECASE)


def is_change(predicate: str) -> bool:
    """Whether a predicate names a change (报销比例降低, rate increase) rather than a level."""
    return CHANGE.search(predicate) is not None


# ---- what a question says its case is not -------------------------------------------------------------------------
NEGATION_ZH = re.compile(r"没有|没|未|不是|并非|不属于|非|不|无")
# what a Chinese question says its case is not: what it says it is not ("不是最便宜的经济型", "并非…"), the noun after a
# modifier's 的, or what an aside of it says it has not ("插座充电（没单独装表）"); a term of two characters or more,
# each of a list ("不是低保户或者特困人员")
_NOT_A_ZH = re.compile(r"(?<![是有])(?:不是|并非|不属于|不算)(?P<t>[^，,。；;？?！!（）()也又还就才都而但]{2,20})")
_NOT_DONE_ZH = re.compile(rf"[（(][^（）()]*?(?<!有)(?:没有|没|未)(?P<t>[{CJK_RANGE}]{{2,14}})[^（）()]*[）)]")
_LIST_ZH = re.compile(r"或者|或是|或|和|及|、")


def negated_terms_zh(question: str) -> list[str]:
    """The terms a Chinese question says its case is not ("（没单独装表）" → 单独装表, "不是最便宜的经济型" → 经济型, "也不是七座的"
    → 七座, "不是低保户或者特困人员" → 低保户, 特困人员); not one it names elsewhere as its case ("办了临时外出就医备案…要是
    当时根本没备案")."""
    out = []
    found = [(m, True) for m in _NOT_A_ZH.finditer(question)] + [(m, False) for m in _NOT_DONE_ZH.finditer(question)]
    for m, copula in found:
        phrase = m.group("t")
        if copula:
            # (not a question put back, "不是说舒享型起步价13元吗"; "不是经济型的话" is the case 经济型)
            if phrase.startswith("说") or phrase.rstrip("？?").endswith(("吗", "嘛")):
                continue
            # (nor a change of status, "已经不算紧缺了": what held when, the document's dates say)
            if phrase.endswith("了") or question[max(0, m.start() - 3):m.start()].endswith(("已经", "已", "不再")):
                continue
            for tail in ("的话", "多少钱", "多少", "怎么"):
                phrase = phrase.split(tail)[0]
            pieces = [p for p in phrase.split("的") if p]
            phrase = pieces[-1] if pieces else ""
        rest = question[:m.start("t")] + question[m.end("t"):]
        for term in _LIST_ZH.split(phrase):
            term = term.strip().rstrip("了过呢吧啊的")
            if len(term) >= 2 and CJK.search(term) and term not in rest:
                out.append(term)
    return out


def unnegated_zh(question: str) -> str:
    """The question with each term it says its case is not (negated_terms_zh) blanked, its length kept: what names a
    row, a column or a class there names none ("不是最便宜的经济型", "也不是七座的")."""
    for term in negated_terms_zh(question):
        question = question.replace(term, " " * len(term))
    return question


# ---- predicates -----------------------------------------------------------------------------------------------
# predicate keyword -> dimensions its value may have; searched longest keyword first, extensible.
# a clause pointing to the table below it ("起付线以上部分按下表比例支付", "at the rates in the following table")
TABLE_POINTER = re.compile(r"下表|如下|下列|\b(?:following|below)\b", re.IGNORECASE)
# the period or count a Chinese measure is taken over, or its end, before it ("年度最高支付限额", "日支付限额", "单次报销
# 限额", "最高限额")
MEASURE_SCOPE_ZH = ("年度", "每年", "每月", "每日", "每次", "单次", "单笔", "累计", "月度", "最高", "最低", "日", "月", "年",
                    "次")
PREDICATE_DIMENSIONS: dict[str, tuple[str, ...]] = {
    "起付线": ("money",), "起付标准": ("money",), "限额": ("money",), "封顶": ("money",), "额度": ("money",),
    "最高支付": ("money",), "补助": ("money", "rate"), "缴费": ("money", "rate"), "金额": ("money",),
    "费用": ("money",), "标准": ("money", "percent", "rate"),
    "比例": ("percent",), "报销比": ("percent",), "支付比": ("percent",), "费率": ("percent",),
    "期限": ("time",), "时限": ("time",), "天数": ("time",), "日内": ("time",), "年龄": ("age",), "周岁": ("age",),
    "有效期": ("time",), "年限": ("time",), "周期": ("time",), "基数": ("money",), "工资": ("money",),
    "cap": ("money", "rate"), "allowance": ("money", "rate"), "limit": ("money", "rate", "time"),
    "threshold": ("money",), "deductible": ("money",), "amount": ("money",), "per diem": ("money", "rate"),
    "mileage": ("rate",), "mileage allowance": ("distance", "money", "rate"),
    "mileage limit": ("distance", "money", "rate"), "rate": ("percent", "rate"), "percent": ("percent",),
    "percentage": ("percent",),
    "share": ("percent",), "tip": ("percent",), "gratuity": ("percent",),
    "deadline": ("time",), "within": ("time",), "days": ("time",), "period": ("time",), "window": ("time",),
    "age": ("age",), "effective date": ("date",), "生效": ("date",),
}
# A predicate that names a period ("nightly rate", "每日补助") asks for an amount per period: money fits it.
# what a question asks a measure of: "the waiting period for cleanings", "大病保险对特困人员的年度最高支付限额" (the
# words a preposition of whom it is for opens, up to 的; ASKED_OF_EN's articles and possessives are not the thing)
ASKED_OF_EN = re.compile(r"\bfor\s+(?:(?:an?|the|my|our|your|their|his|her|its|one|each|any)\s+)?"
                         # (not a pronoun, which names no thing of the document: "what did I pay for it last year")
                         r"(?!(?:it|them|this|that|these|those|him|her|me|us|you)\b)"
                         r"(?P<x>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2}?)(?=\s*(?:[,?.;:]|$|\band\b|\bif\b|\bwhen\b|"
                         r"\bin\b|\bat\b|\bon\b|\bper\b|\bunder\b|\bwith\b))", re.IGNORECASE)
ASKED_OF_ZH = re.compile(rf"[对给向](?P<x>[{CJK_RANGE}]{{2,8}}?)的")
PERIOD_WORDS = re.compile(r"\b(?:nightly|daily|hourly|weekly|monthly|yearly|annual|per\s+\w+|(?:each|every|a)\s+"
                          r"(?:day|night|week|month|year|hour|person|trip|mile|kilometre|kilometer|km))\b|每个?[日天晚月年人次]",
                          re.IGNORECASE)
# what a change predicate may also be given in: "报销比例降低10个百分点", "rate reduced by 5%"
CHANGE_DIMENSIONS = ("percent", "percentage_point")
# Words a question uses to name what it asks for. Not the keys above: "up to" and "per" have no dimension of
# their own, yet they say that the question wants a limit or a rate.
PREDICATE_WORDS = [
    "起付线", "起付标准", "报销比例", "支付比例", "比例", "限额", "封顶", "最高支付限额", "标准", "额度", "补助",
    "期限", "天数", "年龄", "cap", "capped", "limit", "rate", "percent", "allowance", "maximum", "within", "days",
    "per", "mile", "deadline", "reimbursed", "reimbursement", "threshold", "deductible", "up to", "limited to",
]

# ---- names ----------------------------------------------------------------------------------------------------
# A question's wording -> the wordings policies use. Expanding the question (not the document) keeps the index
# per document fixed.
# a compound of two words, lower-cased ("set-up", "check-in"), not part of a longer one ("employee-plus-one"): hyphens
# vary in writing, and it may be written as one word
TWO_WORD_COMPOUND_EN = re.compile(r"(?<![\w-])([a-z]{2,})-([a-z]{2,})(?![\w-])")
SYNONYMS: dict[str, list[str]] = {
    "封顶线": ["最高支付限额", "封顶"],
    "封顶": ["最高支付限额"],
    "最高限额": ["最高支付限额"],
    "起付线": ["起付标准"],
    "门槛": ["起付线", "起付标准"],
    "报销比例": ["支付比例", "报销"],
    "报多少": ["报销比例"],
    # (a share asked is a 比例 however it is asked: "能报百分之几", "按百分之多少", "给几成")
    "百分之几": ["比例"],
    "百分之多少": ["比例"],
    "几成": ["比例"],
    "医院": ["医疗机构"],
    "cap": ["capped", "limit", "maximum", "up to", "limited to"],
    "limit": ["cap", "capped", "maximum", "up to"],
    "hotel": ["lodging"],
    "lodging": ["hotel", "accommodation"],
    "reimbursed": ["reimbursement", "rate"],
    "mileage": ["mile", "miles"],
    "meals": ["meal", "per diem"],
    "deadline": ["within", "days"],
    "how soon": ["within", "days", "deadline"],
    "how long": ["within", "days"],
}
# Everyday names a model may use for the document's own terms in a subject (one term each, unlike SYNONYMS).
SUBJECT_ALIASES = {"医院": "医疗机构", "卫生院": "医疗机构", "hospital": "medical facility", "hotel": "lodging"}
# Subjects that name nothing: a sentence built on them would lose its subject ("相关规定标准为85%").
GENERIC_SUBJECTS = frozenset({
    "相关规定", "规定", "标准", "本办法", "该", "其", "此", "上述", "文件", "政策", "it", "this", "that", "they",
    "the policy", "policy", "the document", "document", "standard", "rule"})

# Names that documents number as a series of kinds ("Severity 1", "Classes 2 and 3", "Tiers 1-3", "Zone 4"), in
# the singular: a member the document does not number is something it does not contain (not the document's own
# divisions, section or article: a question may number those as the document's headings do without the word)
SERIES_NAMES_EN = frozenset({"class", "category", "type", "severity", "priority", "band", "option", "tranche",
                             "series", "zone", "tier", "level", "grade", "phase", "stage", "group"})
# A word and its numbers ("Severity 1", "Class 4", "Classes 2 and 3", "Tiers 1-3"): a list (and, or, a comma) or a
# range (to, through, a dash)
NUMBERED_NAME_EN = re.compile(r"\b([A-Za-z]{3,})\s+(\d{1,2}(?:\s*(?:,|and|or|to|through|-|–)\s*\d{1,2})*)\b(?![.,:]?\d)")
NUMBER_RANGE_EN = re.compile(r"(\d{1,2})\s*(?:to|through|-|–)\s*(\d{1,2})")
# Endings that turn a word into the one who does or receives it (employer / employee, insurer): two words of
# one family that differ by these name different parties, not one thing differently derived
AGENT_ENDINGS_EN = frozenset({"r", "e", "er", "ee", "or"})
# … save beside the ending of the field that party practises: a chiropractor's is chiropractic care, an orthodontist's
# orthodontics (the act's endings, -ion, -ment, -ing, still keep an employer from employment)
FIELD_ENDINGS_EN = frozenset({"ic", "ics", "y", "ry"})
# Whole endings that make a party of a word they extend (cash / cashier, employ / employer): no derivation of it
PARTY_SUFFIXES_EN = frozenset({"er", "or", "ee", "ier", "eer"})
# Endings that derive a word, some of them words themselves ("mileage", "partnership")
DERIVING_SUFFIXES_EN = frozenset({"age", "al", "ance", "ence", "ant", "ent", "ation", "ion", "ity", "ive", "ment",
                                  "ness", "ure", "ate", "ship", "ful", "less", "ic", "ical", "ous", "able", "ible",
                                  "ize", "ise", "ist", "ism", "ry", "ery", "ly", "y"})
# English verbs whose past forms no suffix rule reaches ("must be held" ~ "hold it", "is paid" ~ "pay"): morphology,
# a closed list of the language's irregular verbs as policies use them, not any document's vocabulary
IRREGULAR_EN = {
    "paid": "pay", "held": "hold", "kept": "keep", "given": "give", "gave": "give", "taken": "take", "took": "take",
    "bought": "buy", "sold": "sell", "spent": "spend", "sent": "send", "made": "make", "chosen": "choose",
    "chose": "choose", "written": "write", "wrote": "write", "drawn": "draw", "borne": "bear", "brought": "bring",
    "lent": "lend", "withheld": "withhold", "withdrawn": "withdraw", "undertaken": "undertake", "forgiven": "forgive",
    "begun": "begin", "began": "begin", "known": "know", "shown": "show", "told": "tell", "sought": "seek",
}
