"""UI strings of sign-in, roles, actions a role may not take and the local-mode banner (English and
Chinese).

Key prefixes: ``auth`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    "auth.title": {"en": "Sign in", "zh": "登录"},
    "auth.name": {"en": "Name", "zh": "用户名"},
    "auth.password": {"en": "Password", "zh": "密码"},
    "auth.submit": {"en": "Sign in", "zh": "登录"},
    "auth.sign_out": {"en": "Sign out", "zh": "退出登录"},
    "auth.signed_in": {
        "en": "Signed in as **{name}** ({role})",
        "zh": "当前用户 **{name}**（{role}）",
    },
    "auth.local_refused_host": {
        "en": "Refused: local mode (MEMORY_DASHBOARD_AUTH=none) answers only pages opened at "
        "http://localhost, http://127.0.0.1 or http://[::1], and this page was opened as "
        "`{host}`. A page of another site that points its name at this machine (DNS "
        "rebinding) sees nothing. To serve other machines, create accounts and use "
        "MEMORY_DASHBOARD_AUTH=password.",
        "zh": "已拒绝：本地模式（MEMORY_DASHBOARD_AUTH=none）只响应通过 http://localhost、"
        "http://127.0.0.1 或 http://[::1] 打开的页面，而此页面的地址是 `{host}`。其他网站"
        "把域名指向本机（DNS 重绑定）也看不到任何数据。若要为其他机器提供服务，请创建账号"
        "并使用 MEMORY_DASHBOARD_AUTH=password。",
    },
    "auth.local_refused_address": {
        "en": "Refused: local mode (MEMORY_DASHBOARD_AUTH=none) serves this machine only, but "
        "the server listens on `{address}`. Start it with --server.address 127.0.0.1 "
        "(`make run` does), or create accounts and use MEMORY_DASHBOARD_AUTH=password.",
        "zh": "已拒绝：本地模式（MEMORY_DASHBOARD_AUTH=none）只服务本机，但服务器监听在 "
        "`{address}`。请用 --server.address 127.0.0.1 启动（`make run` 即如此），或创建账号"
        "并使用 MEMORY_DASHBOARD_AUTH=password。",
    },
    "auth.local_banner": {
        "en": "Local mode: no sign-in (MEMORY_DASHBOARD_AUTH=none). Everyone who can reach "
        "this port acts as admin. Use it only on your own machine.",
        "zh": "本地模式：无需登录（MEMORY_DASHBOARD_AUTH=none）。能访问此端口的任何人都拥有"
        "管理员权限，仅限在自己的机器上使用。",
    },
    "auth.no_accounts": {
        "en": "Sign-in is required but no account exists yet. Create one with "
        "`memory-engine user add NAME --role admin --tenant '*'` (writes "
        ".streamlit/secrets.toml), or start a local single-user session with "
        "`MEMORY_DASHBOARD_AUTH=none`.",
        "zh": "需要登录，但尚未创建任何账号。请运行 "
        "`memory-engine user add 用户名 --role admin --tenant '*'`（写入 "
        ".streamlit/secrets.toml），或设置 `MEMORY_DASHBOARD_AUTH=none` 以本地单用户方式启动。",
    },
    "auth.oidc_button": {"en": "Sign in with your identity provider", "zh": "使用身份提供商登录"},
    "auth.failed": {"en": "Sign-in failed: {message}", "zh": "登录失败：{message}"},
    "auth.wrong": {"en": "wrong name or password", "zh": "用户名或密码错误"},
    "auth.locked": {
        "en": "too many failed sign-ins; try again in {seconds} s",
        "zh": "登录失败次数过多，请在 {seconds} 秒后重试",
    },
    "auth.denied": {
        "en": "Your role ({role}) may not do this: {action}.",
        "zh": "您的角色（{role}）无权执行此操作：{action}。",
    },
    "auth.tenant_denied": {
        "en": "You have no access to tenant {tenant}.",
        "zh": "您无权访问租户 {tenant}。",
    },
    "auth.role.viewer": {"en": "viewer", "zh": "查看者"},
    "auth.role.editor": {"en": "editor", "zh": "编辑者"},
    "auth.role.admin": {"en": "admin", "zh": "管理员"},
    "auth.action.read": {"en": "read", "zh": "查看"},
    "auth.action.edit": {"en": "edit", "zh": "编辑"},
    "auth.action.maintain": {"en": "maintain", "zh": "执行维护"},
    "auth.action.purge": {"en": "purge", "zh": "彻底删除"},
    "auth.action.admin": {"en": "admin", "zh": "管理"},
    "auth.secrets_unreadable": {
        "en": "The accounts file .streamlit/secrets.toml cannot be read, so nobody can sign in: "
        "{error}. Fix the file (memory-engine user add refuses to change it until then).",
        "zh": "无法读取账号文件 .streamlit/secrets.toml，因此任何人都无法登录：{error}。"
        "请先修复该文件（在此之前 `memory-engine user add` 不会修改它）。",
    },
}
