"""UI strings of the Context Preview page: the assembled prompt, its sections and what the budget
trimmed (English and Chinese).

Key prefixes: ``ctx`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    "ctx.title": {"en": "Context Preview", "zh": "上下文预览"},
    "ctx.caption": {
        "en": "The exact messages the model would get: system prompt → recalled memories (data "
        "fence) → summary of older turns → recent turns → current input, with tokens per "
        "section (tiktoken cl100k, +4 per message) and what the budget trimmed.",
        "zh": "模型实际收到的消息：系统提示 → 召回的记忆（数据围栏）→ 较早轮次摘要 → 最近轮次 → "
        "当前输入；显示每段的 token 数（tiktoken cl100k，每条消息另加 4）以及被预算裁剪的内容。",
    },
    "ctx.source": {"en": "Conversation", "zh": "对话来源"},
    "ctx.source_session": {"en": "Stored session", "zh": "已存会话"},
    "ctx.source_paste": {"en": "Paste turns", "zh": "粘贴对话"},
    "ctx.session": {"en": "Session", "zh": "会话"},
    "ctx.no_sessions": {
        "en": "No working-memory sessions for this tenant in this dashboard process (sessions "
        "are shared only through Redis: MEMORY_REDIS_URL). Paste turns instead.",
        "zh": "此仪表盘进程中该租户没有工作记忆会话（只有通过 Redis 共享会话：MEMORY_REDIS_URL）。"
        "请改为粘贴对话。",
    },
    "ctx.sessions_cut": {
        "en": "Showing the {shown} most recent sessions; there are more.",
        "zh": "仅显示最近的 {shown} 个会话；还有更多。",
    },
    "ctx.paste": {"en": "Turns", "zh": "对话轮次"},
    "ctx.paste_help": {
        "en": "One message per line, 'user: …' or 'assistant: …' (lines without a prefix "
        'continue the previous message), or a JSON array of {"role", "content"}.',
        "zh": "每行一条消息，以 `user: …` 或 `assistant: …` 开头（无前缀的行接续上一条消息），"
        '或 {"role", "content"} 的 JSON 数组。',
    },
    "ctx.query": {"en": "Current input", "zh": "当前输入"},
    "ctx.task_type": {"en": "Task type", "zh": "任务类型"},
    "ctx.task_none": {"en": "(none)", "zh": "（无）"},
    "ctx.task.chat": {"en": "chat", "zh": "闲聊"},
    "ctx.task.qa": {"en": "questions and answers", "zh": "问答"},
    "ctx.task.planning": {"en": "planning", "zh": "规划"},
    "ctx.task.coding": {"en": "coding", "zh": "编程"},
    "ctx.budget": {"en": "Token budget", "zh": "Token 预算"},
    "ctx.system_prompt": {"en": "System prompt", "zh": "系统提示"},
    "ctx.run": {"en": "Assemble", "zh": "组装"},
    "ctx.need_query": {"en": "Type the current input first.", "zh": "请先输入当前输入。"},
    "ctx.need_session": {"en": "Choose a session or paste turns.", "zh": "请选择会话或粘贴对话。"},
    "ctx.total": {"en": "Tokens", "zh": "Token 数"},
    "ctx.total_value": {"en": "{total} / {budget}", "zh": "{total} / {budget}"},
    "ctx.mode": {"en": "History mode", "zh": "历史模式"},
    "ctx.mode_everything": {"en": "everything verbatim", "zh": "全部原文"},
    "ctx.mode_summarise": {"en": "older rounds summarised", "zh": "较早轮次已摘要"},
    "ctx.history": {"en": "History tokens", "zh": "历史 token 数"},
    "ctx.summarized": {"en": "Summarised rounds", "zh": "已摘要轮次"},
    "ctx.sections": {"en": "Sections", "zh": "各部分"},
    "ctx.messages": {"en": "Messages", "zh": "消息"},
    "ctx.message_label": {
        "en": "#{index} · {section} · {role} · {tokens} tokens",
        "zh": "#{index} · {section} · {role} · {tokens} 个 token",
    },
    "ctx.memories": {"en": "Recalled memories", "zh": "召回的记忆"},
    "ctx.no_memories": {
        "en": "No memory of this tenant matched the input.",
        "zh": "该租户没有与输入匹配的记忆。",
    },
    "ctx.link_not_recorded": {
        "en": "Shown from a link: nothing was recorded (no search trace stored, no access "
        "counted, no archived memory restored). Press Assemble to record this search.",
        "zh": "由链接打开：未记录任何内容（不保存搜索追踪、不计访问次数、不恢复已归档记忆）。"
        "点击「组装」以记录本次搜索。",
    },
    "ctx.trace_link": {
        "en": "Open the search trace in Query Replay",
        "zh": "在查询回放中打开搜索追踪",
    },
    "ctx.trimmed": {"en": "Trimmed by the budget", "zh": "被预算裁剪的内容"},
    "ctx.paste_not_linked": {
        "en": "The pasted turns are longer than {n} characters: the link to this view does not "
        "hold them (paste them again after opening it).",
        "zh": "粘贴的对话超过 {n} 个字符：此视图的链接不包含它们（打开链接后请重新粘贴）。",
    },
    "ctx.nothing_trimmed": {"en": "Nothing was trimmed.", "zh": "没有裁剪任何内容。"},
    "ctx.trim_order": {
        "en": "Trim order: summary (oldest lines first) → memories (lowest rank first) → recent "
        "turns (oldest first). The system prompt and the input are never trimmed.",
        "zh": "裁剪顺序：摘要（最早的行优先）→ 记忆（排名最低优先）→ 最近轮次（最早优先）。"
        "系统提示与当前输入从不裁剪。",
    },
    "ctx.section.system": {"en": "system prompt", "zh": "系统提示"},
    "ctx.section.memories": {"en": "memory block", "zh": "记忆块"},
    "ctx.section.summary": {"en": "summary", "zh": "摘要"},
    "ctx.section.recent": {"en": "recent turns", "zh": "最近轮次"},
    "ctx.section.input": {"en": "current input", "zh": "当前输入"},
    "ctx.col.section": {"en": "section", "zh": "部分"},
    "ctx.col.tokens": {"en": "tokens", "zh": "token 数"},
    "ctx.col.messages": {"en": "messages", "zh": "消息数"},
    "ctx.col.included": {"en": "included", "zh": "已纳入"},
    "ctx.col.why": {"en": "why", "zh": "原因"},
    "ctx.col.what": {"en": "what", "zh": "内容"},
    "ctx.bad_paste": {"en": "Cannot read the turns: {message}", "zh": "无法读取对话：{message}"},
}
