"""UI strings of the Write Inspector page (steps of a write, past writes) and the Conflicts page
(review queue of the write judge's decisions) (English and Chinese).

Key prefixes: ``write``, ``wcol``, ``conflicts`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    # ---- write.*: Write Inspector
    "write.title": {"en": "Write Inspector", "zh": "写入检查"},
    "write.intro": {
        "en": "Paste text and run the extract pipeline: guard, evaluate + extract, "
        "candidates, judge, actions. A dry run changes no memory.",
        "zh": "粘贴文本并运行抽取流程：防护、评估与抽取、候选、判定、动作。试运行不会修改任何记忆。",
    },
    "write.text": {"en": "Text to remember", "zh": "要记住的文本"},
    "write.source": {"en": "Source", "zh": "来源"},
    "write.dry_run": {"en": "Dry run (change nothing)", "zh": "试运行（不做修改）"},
    "write.run": {"en": "Run pipeline", "zh": "运行流程"},
    "write.running": {
        "en": "Running the write pipeline (the first run loads the model)…",
        "zh": "正在运行写入流程（首次运行会加载模型）……",
    },
    "write.need_text": {"en": "Enter some text first.", "zh": "请先输入文本。"},
    "write.remembered": {"en": "Remembered: {reason}", "zh": "已记住：{reason}"},
    "write.not_remembered": {"en": "Not remembered: {reason}", "zh": "未记住：{reason}"},
    "write.decision": {"en": "Decision: {reason}", "zh": "决定：{reason}"},
    # reason codes of skipped writes (memory_engine.llm.reasons.SkipReason)
    "write.skip.small_talk": {
        "en": "greeting, thanks or small talk: nothing to remember",
        "zh": "问候、致谢或闲聊：没有需要记住的内容",
    },
    "write.skip.question": {
        "en": "a question, not a fact about the user",
        "zh": "这是一个问题，不是关于用户的事实",
    },
    "write.skip.one_off_request": {
        "en": "a one-off request, not a lasting fact or instruction",
        "zh": "一次性请求，不是长期的事实或指示",
    },
    "write.skip.no_fact": {
        "en": "no preference, instruction or personal fact found",
        "zh": "没有发现偏好、指示或个人事实",
    },
    "write.skip.tool_output_unstructured": {
        "en": "tool output with no readable conclusion (never stored as is)",
        "zh": "工具输出中没有可读的结论（原始输出从不存储）",
    },
    "write.skip.memory_tool_call": {
        "en": "a call of the memory tools themselves: never stored",
        "zh": "调用记忆工具本身：从不存储",
    },
    "write.skip.injection": {
        "en": "instruction-like text from an untrusted source: quarantined",
        "zh": "来自不可信来源、类似指令的文本：已隔离",
    },
    "write.skip.facts_dropped": {
        "en": "every extracted fact was dropped (see the warnings)",
        "zh": "抽取出的事实全部被丢弃（见警告）",
    },
    "write.failed": {
        "en": "The write failed; its input is kept for a retry (write {write_id}).",
        "zh": "写入失败；输入已保留以便重试（写入 {write_id}）。",
    },
    "write.warning": {"en": "Warning: {message}", "zh": "警告：{message}"},
    "write.step_source": {"en": "1. Source span", "zh": "1. 来源片段"},
    "write.step_guard": {"en": "2. Guard", "zh": "2. 防护"},
    "write.step_llm": {"en": "3. LLM calls", "zh": "3. LLM 调用"},
    "write.step_facts": {"en": "4. Facts, candidates and judge", "zh": "4. 事实、候选与判定"},
    "write.step_actions": {"en": "5. Actions and rows", "zh": "5. 动作与结果行"},
    "write.guard_ok": {"en": "Nothing flagged.", "zh": "未发现问题。"},
    "write.llm_call": {
        "en": "{kind} · `{provider}/{model}` · {latency} ms · {tokens} tokens · `{fmt}`",
        "zh": "{kind} · `{provider}/{model}` · {latency} 毫秒 · {tokens} tokens · `{fmt}`",
    },
    "write.prompt": {"en": "Prompt", "zh": "提示词"},
    "write.raw_output": {"en": "Raw output", "zh": "原始输出"},
    "write.parsed": {"en": "Parsed output", "zh": "解析结果"},
    "write.fact": {"en": "Fact: {content}", "zh": "事实：{content}"},
    "write.no_candidates": {
        "en": "No stored memory was close enough: judge skipped.",
        "zh": "没有足够相近的已存记忆：跳过判定。",
    },
    "write.judge": {"en": "Judge: {detail}", "zh": "判定：{detail}"},
    "write.no_actions": {"en": "No action: nothing was stored.", "zh": "无动作：未存储任何内容。"},
    "write.history": {"en": "Past writes", "zh": "历史写入"},
    "write.no_history": {
        "en": "No writes recorded for this tenant yet.",
        "zh": "该租户尚无写入记录。",
    },
    "write.history_more": {
        "en": "Showing the newest {n} writes.",
        "zh": "仅显示最新的 {n} 条写入。",
    },
    "write.open": {"en": "Open a write trail", "zh": "打开写入轨迹"},
    "write.trail_of": {
        "en": "Trail of write {write_id} ({status})",
        "zh": "写入 {write_id} 的轨迹（{status}）",
    },
    "write.no_trail": {
        "en": "This write has no trail (status {status}).",
        "zh": "该写入没有轨迹（状态 {status}）。",
    },
    "write.usage": {"en": "LLM tokens and cost per day", "zh": "每日 LLM tokens 与费用"},
    "write.usage_unpriced": {
        "en": "Set MEMORY_LLM_PRICE_INPUT_PER_MTOK and MEMORY_LLM_PRICE_OUTPUT_PER_MTOK "
        "(price per million tokens) to see the cost of each write.",
        "zh": "设置 MEMORY_LLM_PRICE_INPUT_PER_MTOK 与 MEMORY_LLM_PRICE_OUTPUT_PER_MTOK"
        "（每百万 tokens 的价格）即可看到每次写入的费用。",
    },
    "write.usage_of_write": {
        "en": "LLM usage: {prompt} input + {completion} output tokens in {requests} "
        "request(s); cost {cost}",
        "zh": "LLM 用量：{requests} 次请求，输入 {prompt} tokens，输出 {completion} tokens；"
        "费用 {cost}",
    },
    "write.cost_unpriced": {"en": "not priced", "zh": "未设置价格"},
    # ---- write statuses, modes and actions (stored values shown through these labels)
    "write.status_dry_run": {"en": "dry run", "zh": "试运行"},
    "write.status.pending": {"en": "pending", "zh": "排队中"},
    "write.status.running": {"en": "running", "zh": "运行中"},
    "write.status.done": {"en": "done", "zh": "完成"},
    "write.status.skipped": {"en": "skipped", "zh": "未记住"},
    "write.status.failed": {"en": "failed", "zh": "失败"},
    "write.status.refused": {"en": "refused", "zh": "已拒绝"},
    "write.mode.extract": {"en": "extract", "zh": "抽取"},
    "write.mode.raw": {"en": "raw", "zh": "原样"},
    "write.planned": {"en": "{action} (dry run)", "zh": "{action}（试运行）"},
    "write.action.create": {"en": "create", "zh": "创建"},
    "write.action.duplicate": {"en": "duplicate", "zh": "重复"},
    "write.action.supersede": {"en": "supersede", "zh": "取代"},
    "write.action.supplement": {"en": "supplement", "zh": "补充"},
    "write.action.reinforce": {"en": "reinforce", "zh": "强化"},
    "write.call.extract": {"en": "extract", "zh": "抽取"},
    "write.call.judge": {"en": "judge", "zh": "判定"},
    "write.chars": {"en": "{n} chars", "zh": "{n} 个字符"},
    "write.matched": {"en": "matched: {kinds}", "zh": "匹配：{kinds}"},
    "write.kind.address": {"en": "address", "zh": "地址"},
    "write.kind.allergy": {"en": "allergy", "zh": "过敏"},
    "write.kind.amount": {"en": "amount", "zh": "金额"},
    "write.kind.attr": {"en": "attribute", "zh": "属性"},
    "write.kind.deadline": {"en": "deadline", "zh": "截止时间"},
    "write.kind.event": {"en": "event", "zh": "事件"},
    "write.kind.has": {"en": "possession", "zh": "拥有"},
    "write.kind.health": {"en": "health", "zh": "健康"},
    "write.kind.instruction": {"en": "instruction", "zh": "指示"},
    "write.kind.name": {"en": "name", "zh": "名字"},
    "write.kind.origin": {"en": "origin", "zh": "籍贯"},
    "write.kind.preference": {"en": "preference", "zh": "偏好"},
    "write.kind.residence": {"en": "residence", "zh": "居住地"},
    "write.kind.schedule": {"en": "schedule", "zh": "日程"},
    "write.kind.state": {"en": "state", "zh": "状态"},
    "write.kind.tool": {"en": "tool result", "zh": "工具结果"},
    "write.kind.workplace": {"en": "workplace", "zh": "工作地点"},
    "write.kind.habit": {"en": "habit", "zh": "习惯"},
    "write.kind.chat": {"en": "chat", "zh": "闲聊"},
    "write.kind.fact": {"en": "fact", "zh": "事实"},
    # ---- raw ingests (one memory per turn, no extract pipeline; from the audit events)
    "write.raw_header": {"en": "Raw ingests", "zh": "原样导入"},
    "write.raw_intro": {
        "en": "Memories stored as they are, one per turn, without the extract pipeline "
        "(`memory-engine ingest`, `MemoryEngine.write`): runs of the newest {n} audit events.",
        "zh": "原样存储的记忆（每轮一条，不经过抽取流程；`memory-engine ingest`、"
        "`MemoryEngine.write`）：取自最新的 {n} 条审计事件。",
    },
    "write.raw_none": {
        "en": "No raw ingest among the newest {n} audit events.",
        "zh": "最新的 {n} 条审计事件中没有原样导入。",
    },
    "wcol.source": {"en": "source", "zh": "来源"},
    "wcol.first": {"en": "first (UTC)", "zh": "最早（UTC）"},
    "wcol.last": {"en": "last (UTC)", "zh": "最晚（UTC）"},
    "wcol.memories": {"en": "memories", "zh": "记忆数"},
    "wcol.sessions": {"en": "sessions", "zh": "会话数"},
    "wcol.turns": {"en": "turns", "zh": "轮次"},
    "wcol.actor": {"en": "actor", "zh": "操作者"},
    "wcol.reason": {"en": "reason", "zh": "原因"},
    "wcol.newest": {"en": "newest content", "zh": "最新内容"},
    # ---- wcol.*: Write Inspector and Conflicts table columns
    "wcol.tokens_in": {"en": "tokens in", "zh": "输入 tokens"},
    "wcol.tokens_out": {"en": "tokens out", "zh": "输出 tokens"},
    "wcol.cost": {"en": "cost", "zh": "费用"},
    "wcol.day": {"en": "day (UTC)", "zh": "日期（UTC）"},
    "wcol.writes": {"en": "writes", "zh": "写入数"},
    "wcol.llm_requests": {"en": "LLM requests", "zh": "LLM 请求数"},
    "wcol.write_id": {"en": "write id", "zh": "写入 ID"},
    "wcol.status": {"en": "status", "zh": "状态"},
    "wcol.mode": {"en": "mode", "zh": "模式"},
    "wcol.input": {"en": "input", "zh": "输入"},
    "wcol.created": {"en": "created (UTC)", "zh": "创建时间（UTC）"},
    "wcol.action": {"en": "action", "zh": "动作"},
    "wcol.memory": {"en": "memory", "zh": "记忆"},
    "wcol.target": {"en": "target", "zh": "目标"},
    "wcol.detail": {"en": "detail", "zh": "说明"},
    "wcol.index": {"en": "index", "zh": "序号"},
    "wcol.candidate": {"en": "candidate", "zh": "候选"},
    "wcol.new": {"en": "new memory", "zh": "新记忆"},
    "wcol.old": {"en": "old memory", "zh": "旧记忆"},
    "wcol.old_status": {"en": "old status", "zh": "旧记忆状态"},
    "wcol.review": {"en": "review", "zh": "审核"},
    # ---- conflicts.*: Conflicts page
    "conflicts.title": {"en": "Conflicts", "zh": "冲突审核"},
    "conflicts.intro": {
        "en": "Decisions of the write judge: a new memory superseded or supplemented an old one. "
        "Accept or reject each; every review is recorded as an event.",
        "zh": "写入判定的决定：新记忆取代或补充了旧记忆。逐条接受或驳回；每次审核都记录为事件。",
    },
    "conflicts.empty": {"en": "No judge decisions to review.", "zh": "没有需要审核的判定。"},
    "conflicts.truncated": {
        "en": "Showing the newest {n} decisions.",
        "zh": "仅显示最新的 {n} 条判定。",
    },
    "conflicts.pick": {"en": "Decision to review", "zh": "要审核的判定"},
    "conflicts.decision": {"en": "Review", "zh": "审核"},
    "conflicts.accept": {"en": "Accept", "zh": "接受"},
    "conflicts.reject": {"en": "Reject (restore the old memory)", "zh": "驳回（恢复旧记忆）"},
    "conflicts.reason": {"en": "Reason (required)", "zh": "原因（必填）"},
    "conflicts.save": {"en": "Save review", "zh": "保存审核"},
    "conflicts.saved": {"en": "Review saved: {decision}.", "zh": "审核已保存：{decision}。"},
    "conflicts.need_reason": {"en": "Give a reason first.", "zh": "请先填写原因。"},
}
