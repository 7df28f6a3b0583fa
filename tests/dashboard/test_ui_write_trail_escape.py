"""Write trails show extracted facts, judge details and warnings literally: an LLM extractor
may keep a Markdown image or link from the input, which must not render (no fetch, no link)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

EVIL = "![x](http://evil.invalid/t.png) [click](http://evil.invalid/)"


def _page() -> None:
    from memory_engine.dashboard.widgets.write_trail import render_trail

    evil = "![x](http://evil.invalid/t.png) [click](http://evil.invalid/)"
    render_trail(
        {
            "source": {"text": evil, "source": "conversation", "chars": len(evil)},
            "guard": {"notes": [f"reduced: {evil}"]},
            "llm_calls": [],
            "facts": [{"fact": {"content": evil}, "judge": f"skipped: {evil}"}],
            "actions": [],
            "warnings": [f"odd output {evil}"],
        },
        "en",
    )


def test_trail_text_is_escaped() -> None:
    at = AppTest.from_function(_page).run()
    assert not at.exception
    rendered = [
        *(m.value for m in at.markdown),
        *(c.value for c in at.caption),
        *(w.value for w in at.warning),
    ]
    carrying = [r for r in rendered if "evil.invalid" in r]
    assert len(carrying) >= 4, rendered  # fact, judge, guard note, warning
    for r in carrying:
        assert "![x](" not in r and "[click](" not in r, r
        assert "\\[x\\]" in r or "\\[click\\]" in r, r
