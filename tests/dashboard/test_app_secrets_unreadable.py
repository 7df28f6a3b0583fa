"""A malformed .streamlit/secrets.toml (AppTest): the sign-in page says the file cannot be
read, with the TOML error, instead of "no account yet, run memory-engine user add" (which
then fails on the same file)."""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.errors import StreamlitSecretNotFoundError
from streamlit.runtime.secrets import Secrets
from streamlit.testing.v1 import AppTest

from memory_engine.dashboard.i18n import t
from tests.dashboard.conftest import APP
from tests.dashboard.helpers import assert_clean, texts

TOML_ERROR = "Expected ']' at the end of a table declaration (at line 1, column 13)"


def test_malformed_secrets_file_is_named(
    monkeypatch: pytest.MonkeyPatch, dashboard_env: dict[str, str]
) -> None:
    monkeypatch.setenv("MEMORY_DASHBOARD_AUTH", "password")

    def broken(self: Secrets, key: str, default: Any = None) -> Any:
        raise StreamlitSecretNotFoundError(
            "Error parsing secrets file at {path}: {error}",
            path=".streamlit/secrets.toml",
            error=TOML_ERROR,
            error_id="failed-parsing-secrets-file",
        )

    monkeypatch.setattr(Secrets, "get", broken)
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["lang"] = "zh"
    at.run()
    assert_clean(at)
    errors = texts(at.error)
    assert len(errors) == 1 and errors[0].startswith("无法读取账号文件"), errors
    assert "at the end of a table declaration" in errors[0]
    assert t("auth.no_accounts", "zh") not in texts(at.info)
    assert not at.text_input  # no sign-in form
