"""Command-line tool errors reduced to their conclusion (a part of ``toolsummary``): what failed
and why, in a short line, never the output itself.

Read shapes (any tool that prints an error line): ``error: …`` / ``fatal: …`` (git, kubectl,
cargo, gcc), ``error[E0308]: …`` with a ``--> file:line:col`` location (rustc), ``npm ERR! code
…`` (npm, yarn), ``ERROR: …`` / ``Error: …`` lines, ``E: …`` (apt), a rejected ``git push``
(``! [rejected]``), and Chinese ``错误：…`` / ``报错：…``; an npm peer-dependency
conflict (ERESOLVE) names the package, the peer it needs and the version found, and pip's "No
matching distribution" the requirement and the versions the index has. The conclusion names the error code
when there is one (E0308, ERESOLVE, exit status), the message (at most ``QUOTE_MAX_CHARS``) and
where it was raised. An output without such a line concludes nothing here.
"""

from __future__ import annotations

import re

from memory_engine.llm.toolconclusion import Conclusion, quote, short
from memory_engine.llm.toolsecrets import secret_value

__all__ = ["command_errors", "package_conflict"]

_ERROR_LINE_RE = re.compile(
    r"^\s*(?:npm ERR!|yarn error|(?:error|fatal|Error|ERROR|FATAL)"
    r"(?:\[(?P<code>[A-Z]?\d{3,5})\]| (?P<num>\d{3,5})(?: \(\w+\))?)?:|"
    r"E:|错误[:：]|报错[:：]|失败[:：])\s*(?P<msg>\S.*)$",
    re.M,
)
_NPM_CODE_RE = re.compile(r"^\s*npm ERR! code (?P<code>[A-Z][A-Z0-9_]{2,})\s*$", re.M)
_LOCATION_RE = re.compile(r"^\s*-->\s*(?P<file>[\w./\\-]+):(?P<line>\d+)", re.M)
_REJECTED_RE = re.compile(r"^\s*!\s*\[(?:remote )?rejected\]", re.M)
_EXIT_RE = re.compile(
    r"\b(?:exit(?:ed)?(?: with)?(?: status| code)?|returned)\s+(?P<code>[1-9]\d{0,2})\b", re.I
)
#: Messages that only say the run stopped, not why (kept only when no other error is given).
_GENERIC_MSG_RE = re.compile(
    r"^(?:could not compile|aborting due to|failed to compile|command failed|"
    r"A complete log of this run|Process completed with exit code)",
    re.I,
)


#: npm's peer conflict: "peer react@"^18" from react-datepicker@6.9.0" and "Found: react@19.0.0".
_NPM_PEER_RE = re.compile(r"^\s*npm ERR!\s+peer (?P<peer>\S+?@\S.*?) from (?P<pkg>\S+)\s*$", re.M)
_NPM_FOUND_RE = re.compile(r"^\s*npm ERR!\s+Found: (?P<found>\S+)", re.M)
#: pip: "No matching distribution found for torch==2.1.0" and "(from versions: 2.2.0, 2.3.1)".
_PIP_NO_MATCH_RE = re.compile(
    r"No matching distribution found for (?P<req>[A-Za-z0-9][\w.\-\[\]]*(?:[=<>!~]=?[\w.*]+)?)(?![\w:/@])"
)
_PIP_VERSIONS_RE = re.compile(r"\(from versions: (?P<versions>[^)]*)\)")


def package_conflict(text: str) -> list[Conclusion] | None:
    """An npm peer-dependency conflict or a pip requirement no index holds, or None (also
    when what it would name carries a credential: a token or a password in a URL)."""
    found = _package_conflict(scrubbed(text))
    if found is None or any(secret_value(c.text) for c in found):
        return None
    return found


#: The login of a URL ("https://user:pass@host", "git+https://ghp_…@github.com").
_URL_LOGIN_RE = re.compile(r"(?<=://)[^/\s@]+@")
#: An access token's shape (GitHub, GitLab, Stripe, Slack).
_TOKEN_RE = re.compile(r"\b(?:ghp|gho|ghs|github_pat|glpat|sk|pk|rk|xox[abp])[_-]\w{6,}", re.I)


def scrubbed(text: str) -> str:
    """``text`` without the logins of its URLs and without access tokens (each "…")."""
    return _TOKEN_RE.sub("…", _URL_LOGIN_RE.sub("", text))


def _package_conflict(text: str) -> list[Conclusion] | None:
    peer, found = _NPM_PEER_RE.search(text), _NPM_FOUND_RE.search(text)
    if peer:
        said = f"npm install failed with ERESOLVE: {peer.group('pkg')} needs peer "
        said += peer.group("peer").replace('"', "")
        if found:
            said += f", found {found.group('found')}"
        return [Conclusion(short(said), "command", "error", ("ERESOLVE", peer.group("pkg")))]
    missing = _PIP_NO_MATCH_RE.search(text)
    if missing:
        req = missing.group("req")
        said = f"pip install failed: no matching distribution for {req}"
        versions = _PIP_VERSIONS_RE.search(text)
        listed = [v.strip() for v in (versions.group("versions") if versions else "").split(",")]
        listed = [v for v in listed if v and v.lower() != "none"]
        if listed:
            said += f" (available {listed[0]}" + (f" to {listed[-1]})" if len(listed) > 1 else ")")
        else:
            said += " (no version available)"
        return [Conclusion(short(said), "command", "error", (re.split(r"[=<>!~]", req)[0],))]
    return None


def command_errors(text: str) -> list[Conclusion] | None:
    """The conclusion of a command's error output: "The command failed with E0308 (mismatched
    types) at src/cart.rs line 88", "git push was rejected: failed to push some refs", or None
    when ``text`` holds no error line."""
    text = scrubbed(text)  # a quoted message never carries a URL's login or a token
    found = [m for m in _ERROR_LINE_RE.finditer(text) if m.group("msg").strip()]
    rejected = _REJECTED_RE.search(text)
    if not found and not rejected:
        return None
    npm = _NPM_CODE_RE.search(text)
    useful = [m for m in found if not _GENERIC_MSG_RE.match(m.group("msg"))] or found
    if npm:
        useful = [m for m in useful if not m.group("msg").startswith("code ")] or useful
    first = useful[0] if useful else None
    message = first.group("msg").strip() if first else ""
    message = re.sub(r"^(?:code\s+)", "", message)
    code = (first.group("code") or first.group("num") if first else None) or (
        npm.group("code") if npm else None
    )
    if code and message.startswith(code):
        message = message[len(code) :].strip(" :")
    where = _LOCATION_RE.search(text)
    zh = bool(re.search(r"[\u4e00-\u9fff]", message))
    if zh:
        said = (
            "命令执行失败"
            + (f"（{code}）" if code else "")
            + (f"：{quote(message)}" if message else "")
        )
        if where:
            said += f"，位置 {where.group('file')} 第{where.group('line')}行"
    else:
        if rejected and "push" in text:
            said = "git push was rejected"
        else:
            said = "The command failed" + (f" with {code}" if code else "")
        if message:
            said += f" ({quote(message)})" if code or not rejected else f": {quote(message)}"
        if where:
            said += f" at {where.group('file')} line {where.group('line')}"
        exit_code = _EXIT_RE.search(text)
        if exit_code and not code:
            said += f", exit code {exit_code.group('code')}"
    ids = tuple(x for x in (code,) if x)
    return [Conclusion(short(said), "command", "error", ids)]
