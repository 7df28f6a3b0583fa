"""UI strings of PII and secret findings on the Write Inspector and Audit pages (kinds, counts and
what the tenant's policy did; never the values) (English and Chinese).

Key prefixes: ``pii``, ``pcol`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    # ---- pii.*: findings
    "pii.header": {"en": "PII and secrets", "zh": "个人信息与密钥"},
    "pii.found": {
        "en": "Found: {kinds} ({count} in all). Policy: {action}.",
        "zh": "发现：{kinds}（共 {count} 处）。策略：{action}。",
    },
    "pii.none": {"en": "No PII or secrets found.", "zh": "未发现个人信息或密钥。"},
    "pii.action.redact": {"en": "redacted", "zh": "已脱敏"},
    "pii.action.block": {"en": "blocked (write refused)", "zh": "已拦截（拒绝写入）"},
    "pii.action.off": {"en": "kept as is (policy off)", "zh": "原样保留（策略为关闭）"},
    "pii.redacted_note": {
        "en": "Redacted before the LLM call, the embedding and storage: the values were never "
        "sent, embedded or stored. The text as processed:",
        "zh": "在调用 LLM、生成向量和存储之前已脱敏：原始值从未被发送、向量化或存储。"
        "实际处理的文本：",
    },
    "pii.blocked_note": {
        "en": "Refused by this tenant's PII policy (block): nothing was stored, embedded or "
        "sent to the LLM. The input with the values redacted:",
        "zh": "按本租户的个人信息策略（拦截）拒绝写入：没有任何内容被存储、向量化或发送给 LLM。"
        "脱敏后的输入：",
    },
    "pii.off_note": {
        "en": "This tenant's PII policy is off: the text was stored as is.",
        "zh": "本租户的个人信息策略为关闭：文本按原样存储。",
    },
    "pii.refused_now": {
        "en": "Write refused by the PII policy: {kinds}. Nothing was stored.",
        "zh": "写入被个人信息策略拒绝：{kinds}。未存储任何内容。",
    },
    "pii.kind.email": {"en": "e-mail", "zh": "电子邮箱"},
    "pii.kind.cn_mobile": {"en": "mainland China mobile", "zh": "中国大陆手机号"},
    "pii.kind.phone": {"en": "phone number", "zh": "电话号码"},
    "pii.kind.cn_id": {"en": "resident ID number", "zh": "居民身份证号"},
    "pii.kind.bank_card": {"en": "bank card number", "zh": "银行卡号"},
    "pii.kind.secret": {"en": "API key or secret", "zh": "API 密钥或口令"},
    # ---- pcol.*: table columns
    "pcol.pii": {"en": "PII", "zh": "个人信息"},
}
