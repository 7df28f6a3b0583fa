"""What an utterance does, for the ``rules`` provider (Chinese and English): sentence ends,
small talk (greetings, thanks, acknowledgements), questions, one-off requests ("帮我把这段话翻译
成英文", "Rewrite this paragraph"), standing instructions ("以后用中文回复", "Always cite
sources"), and the cues of a changed value, a temporary state and a weekday.
"""

from __future__ import annotations

import re

__all__ = [
    "CHANGE_RE",
    "CHITCHAT_RE",
    "INSTRUCTION_RE",
    "QUESTION_RE",
    "REQUEST_RE",
    "TASK_RE",
    "is_task",
    "SENTENCE_RE",
    "TEMPORARY_RE",
    "WEEKDAY_RE",
]

SENTENCE_RE = re.compile(r"(?<=[。！？!?；;\n])|(?<=\.)\s+")

CHITCHAT_RE = re.compile(
    r"(?:你好|您好|嗨|哈喽|哈啰|在吗|谢谢你?|多谢|感谢|谢啦|好的|好滴|好|行|嗯+|哦+|噢+|哈+|呵呵|收到|"
    r"明白了?|知道了|了解|再见|拜拜|晚安|早上好|早安|午安|下午好|晚上好|没问题|不客气|辛苦了?|对|是的|"
    r"不错|太好了|厉害|棒|ok|okay|k|hi|hello|hey|yo|thanks|thank you|thank you so much|thx|ty|"
    r"sure|got it|cool|great|nice|awesome|bye|goodbye|see you|good (?:morning|night|evening|"
    r"afternoon)|yes|no|yeah|yep|nope|lol|haha|you're welcome|no problem|sounds good|perfect|"
    r"alright|all right|hmm+|wow|ok thanks|okay thanks|sorry|my bad|抱歉|不好意思|nevermind|算了|没事了?|"
    r"不用了|我们继续吧?|继续吧?|接着说|continue|"
    # closing a session: "今天就到这吧", "先这样", "that's all for today"
    r"(?:今天|那|那今天|今天先|那就)?(?:就)?(?:先)?(?:到这|到这里|到此|到这儿|这样)(?:吧|了|为止)?|"
    r"先这样吧?|就这样吧?|回头聊|下次聊|改天聊|"
    r"that's (?:all|it)(?: for (?:now|today))?|that is all|talk (?:to you )?later|ttyl|"
    r"see you tomorrow|catch you later|let's stop here(?: for today)?|that's enough for today)",
    re.I,
)
QUESTION_RE = re.compile(
    r"[?？]\s*$|吗\s*[。]?$|^(?:请问|能不能|可不可以|是不是|有没有|为什么|怎么|什么|哪|谁)|"
    r"^(?:what|how|why|when|where|who|which|can you|could you|would you|do you|does|is it|"
    r"are you|is there|should i)\b",
    re.I,
)
REQUEST_RE = re.compile(
    r"^(?:请)?(?:帮我|帮忙|给我|替我|麻烦你?)(?:查|找|写|翻译|总结|看|算|搜|订|生成|改|发|讲|说|推荐|画|编|"
    r"列|介绍|解释|想|做|来|把|整理|检查|核对|对比|比较)|"
    # a one-off task on something at hand: "把这个表格整理一下发我", "查一下明天的航班"
    r"^(?:请|麻烦你?)?(?:把|将)(?:这|那|上面|下面|刚才|以下)|"
    r"^(?:请|麻烦你?)?(?:查|搜|看|算|找|整理|翻译|总结|解释|介绍|推荐|写|列|讲|检查|核对|对比|比较|润色)"
    r"(?:一下|一查|查看)|"
    r"^(?:please )?(?:help me|summari[sz]e|translate|write|find|search|check|look up|"
    r"calculate|draft|generate|show me|tell me|give me|list|rewrite|rephrase|proofread|explain|"
    r"convert|compare|shorten|paraphrase|brainstorm|outline|recommend|suggest|describe|"
    r"make (?:this|that|it) (?:shorter|longer|more|less|sound))\b",
    re.I,
)
#: A task for the agent's tools right now, said as a bare command: "run the test suite",
#: "book me the 10:30 slot", "deploy web-frontend v2.14.0 to prod", "跑一下 auth 模块的测试",
#: "查下我那趟高铁". Read on one clause only (``is_task``): a fact said beside it ("cancel the
#: newspaper, we're moving to Tokyo") is kept. Never a standing rule (each, by default, only,
#: never, on Mondays, 以后, 每次) or a sentence about the user's own things (my, I'm).
TASK_RE = re.compile(
    r"^(?:please |pls |can you |could you )?(?:run|rerun|book|deploy|redeploy|install|uninstall|"
    r"restart|reboot|add|remove|delete|create|cancel|reserve|reschedule|upgrade|update|build|"
    r"rebuild|test|lint|ping|fetch|pull|push|merge|rebase|revert|roll ?back|scale|migrate|grep|"
    r"tail|curl|ssh|kill|spin up|set up|hit|send|submit|download|upload|sync|backup|"
    r"provision)\s+(?:me|us|the|a|an|this|that|it|these|those|all|"
    r"(?=[\w\-./]*[A-Za-z])(?=[\w\-./]*[\d\-_./])[\w\-./]{2,}|\w+\s+--?\w+|"
    r"\w+\s+(?:tests?|suite|script|job|pipeline|build|migrations?|command|container|server|"
    r"service|branch|crate|package|module)s?)\b"
    r"(?!.*\b(?:always|every|each|whenever|when|by default|only|never|rather than|instead of|"
    r"from now on|going forward|nightly|daily|weekly|monthly|on (?:mondays|tuesdays|wednesdays|"
    r"thursdays|fridays|saturdays|sundays|weekdays|weekends)|my|our|I'm|I am|we're|we are|"
    r"(?:before|after) (?:\w+ )?\w+s)\b)|"
    r"^(?:请|麻烦你?)?(?:跑|查|装|部署|重启|发布|上线|回滚|提交|推送|删除|创建|新建|安装|卸载|升级|下载|"
    r"上传|执行|运行|构建|编译|预订|取消|发送|导入|导出|同步|备份)(?:一下|下(?![来去])|一遍)"
    r"(?![^，,。]*(?:以后|每次|总是|一律|习惯|一般))|"
    r"^(?:请|麻烦你?)?帮(?:我|忙)(?!记|备注|记录|记住|提醒|留意)[^，,。]{0,16}一下"
    r"(?![^，,。]*(?:以后|每次|总是|一律))",
    re.I,
)
INSTRUCTION_RE = re.compile(
    r"^请(?:用|以|始终|一直|都|总是)|(?:用|以)[^，,。]{1,8}(?:回答|回复|答复|交流|沟通)|"
    r"^(?:when|whenever|if) (?:you|I)\b[^?]*,|"
    r"^(?:please )?(?:keep|use|include|avoid|cite|format|write|answer|reply|respond|add|put|give|"
    r"show|send|list|don't|do not)\b[^?]*\b(?:answers?|repl(?:y|ies)|responses?|messages?|emails?|"
    r"code|words|units|sources|summar\w*|format|tone|bullet\w*|markdown|language|emojis?|"
    r"for me|to me)\b|\bI(?: want|'d like| would like| need) you to\b|"
    r"(?:别|不要|不能)(?:超过|太长|太短|带|加)|(?:的)?(?:步骤|流程)(?:是|[:：])|"
    r"^(?:我)?以后|(?<![受伤完])以后(?=都|请|别|不要|记得|用|回复|每|先)|今后|"
    r"(?:每天|每周.{0,4}?|每次|每个月|每晚)(?:都)?(?:帮|给|提醒|替)(?:我|用户)|从现在起|从今天起|每次|总是|一律|(?:别|不要|不用|请勿|勿)(?:再)?(?:给我|帮我|跟我|"
    r"给用户|帮用户)|记住|"
    r"^(?:please )?(?:always|never)\b(?! ?mind)|"
    # a standing rule without a subject: "部署前一定要先跑一遍回归测试", "上线之前务必通知运维"
    r"^(?!我|用户)[^，,。]{1,12}(?:之前|前|的时候|时|之后|后)(?:都)?(?:一定要|务必|必须|要先|记得先)|\b(?:from now on|in the future|going forward|please don't|don't ever|"
    r"every time|remember that)\b",
    re.I,
)
CHANGE_RE = re.compile(
    r"改成|改到|改为|换成|换到|调整到|调到|挪到|移到|推迟到|提前到|延长到|延期到|"
    r"\b(?:changed? to|moved? to|switch(?:ed)? to|reschedul\w* (?:to|for)|is now on|now on)\b",
    re.I,
)
TEMPORARY_RE = re.compile(
    r"最近(?![\u4e00-\u9fff]{0,4}的)(?!刚?(?:搬|换了|买了|卖了|辞职|跳槽|结婚|离婚|入职|毕业))|这几天|这两天|这阵子|这段时间|这段日子|这两周|这个月|暂时|临时|"
    r"(?<!从)(?<!自)这周(?!开始|起)|(?<!从)本周(?!开始|起)|近期|近几天|(?:接下来|未来)(?:的)?(?:几|两|三|一)(?:天|周|个星期)|"
    # "recently moved", "recently got a dog": a change that happened, not a passing state
    r"\b(?:these days|lately|recently(?! (?:\w+ed|got|bought|sold|left|quit|became|began|met)\b)|"
    r"for now|for the (?:next|coming) (?:few|couple(?: of)?|two|three|four|five|six|seven|eight|nine|ten|\d+) "
    r"(?:days|weeks)|for a (?:few|couple of) (?:days|weeks)|this month|until it's (?:fixed|back)|"
    r"(?<!starting )(?<!from )(?<!as of )(?<!beginning )this week|at the moment|right now|temporarily|for the time being|until (?:next )?(?:monday|"
    r"tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next week|the end of))\b",
    re.I,
)
WEEKDAY_RE = re.compile(
    r"(?P<day>(?:周|星期|礼拜)[一二三四五六日天]|\b(?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)s?\b)",
    re.I,
)


def is_task(sentence: str) -> bool:
    """True when ``sentence`` is only a task for the agent (``TASK_RE``): one clause, or
    clauses that are each a task ("deploy it, then run the smoke tests"), never a standing rule
    (``INSTRUCTION_RE``)."""
    if INSTRUCTION_RE.search(sentence):
        return False
    pieces = [p.strip() for p in re.split(r"[，,;；：]|:(?!\d)|\s+[-—–]\s+", sentence) if p.strip()]
    return (
        bool(pieces)
        and all(TASK_RE.search(p) or CHITCHAT_RE.fullmatch(p.strip(" .!！。")) for p in pieces)
        and bool(TASK_RE.search(pieces[0]))
    )
