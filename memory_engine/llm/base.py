"""The write-decision LLM protocol, implemented by ``rules`` (offline) and ``openai_compat``.

An LLM here answers two questions of the write pipeline (docs/architecture.md#write-pipeline):

* ``extract``: should this input be remembered, and which facts does it hold?
* ``judge``: how does a new fact relate to stored memories it is shown (by index)?

Each call returns its typed answer together with an ``LLMCall`` audit record.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from memory_engine.llm.schemas import Extraction, Fact, Judgement, LLMCall
from memory_engine.models import MemorySource


class ExtractInput(BaseModel):
    """One guarded input. ``observed_at`` is aware; ``timezone`` is the user's IANA zone."""

    model_config = ConfigDict(frozen=True)

    text: str
    observed_at: datetime
    timezone: str = "UTC"
    source: MemorySource = MemorySource.CONVERSATION
    speaker: str | None = None
    #: What the user's previous message left in memory (``write.continuation``), oldest
    #: first: context for pronouns and left-out subjects, never facts to extract again.
    context: tuple[str, ...] = ()


class JudgeCandidate(BaseModel):
    """A stored memory shown to the judge; ``index`` is the only id the judge may name."""

    model_config = ConfigDict(frozen=True)

    index: int
    content: str
    memory_type: str
    observed_at: datetime | None = None
    valid_until: datetime | None = None
    similarity: float = 0.0
    #: Cosine on the multilingual dense leg (``dense_ml``), when the engine has that leg.
    similarity_ml: float | None = None
    #: True for a memory the same write just stored (another fact of the same input).
    same_write: bool = False
    #: True for a memory the user's previous message stored a moment ago
    #: (``write.continuation``): a fact that continues it ("she's a border collie" after "we
    #: got a dog") is about the same thing.
    recent: bool = False
    key: dict[str, object] = {}


@runtime_checkable
class WriteLLM(Protocol):
    """A provider of write decisions."""

    name: str
    model: str

    def extract(self, item: ExtractInput) -> tuple[Extraction, LLMCall]:
        """Evaluate and extract in one call.

        Raises:
            ExtractionFailedError: output unusable after bounded retries.
            LLMError: endpoint failure after retries.
        """
        ...

    def judge(
        self, fact: Fact, candidates: list[JudgeCandidate], item: ExtractInput
    ) -> tuple[Judgement, LLMCall]:
        """Relate ``fact`` to each shown candidate (decisions name candidate indexes only).

        Raises:
            LLMError: endpoint failure after retries (the pipeline then keeps both memories).
        """
        ...

    def merge(self, contents: list[str]) -> tuple[str, LLMCall]:
        """One fact that says what ``contents`` (near-duplicates, oldest first) say together.

        Raises:
            ExtractionFailedError, LLMError: as ``extract``.
        """
        ...
