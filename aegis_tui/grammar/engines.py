"""Check a GBNF against both grammar engines the inference engine uses: llama.cpp and llguidance."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class EngineVerdict:
    """Whether each grammar engine accepted the grammar, with its error text when not."""

    llama_cpp_ok: bool
    llguidance_ok: bool
    llama_cpp_error: str = ""
    llguidance_error: str = ""

    @property
    def ok(self) -> bool:
        return self.llama_cpp_ok and self.llguidance_ok


def _vocab_model(model_path: str):
    """The process-lifetime vocab-only model the engine's grammar path also uses."""
    from ..engine.grammar_matcher import vocab_model
    from ..models import inspect_model

    inspect_model(model_path)  # validate in Python before llama.cpp sees the file
    return vocab_model(model_path)


def _tokenizer(model_path: str):
    from ..engine.grammar_matcher import llg_tokenizer

    _vocab_model(model_path)
    return llg_tokenizer(model_path)


def check_llama_cpp(gbnf: str, model_path: str) -> str:
    """'' when llama.cpp's grammar sampler compiles the grammar, else the error it reported."""
    from ..engine.grammar_matcher import init_gbnf_sampler
    from ..engine.native import llama

    lc = llama()
    sampler, error = init_gbnf_sampler(lc.llama_model_get_vocab(_vocab_model(model_path)), gbnf)
    if sampler:
        lc.llama_sampler_free(sampler)
    return error


def check_llguidance(gbnf: str, model_path: str) -> str:
    """'' when llguidance builds a matcher from the grammar, else its error."""
    import llguidance

    try:
        grammar = llguidance.grammar_from("gbnf", gbnf)
    except Exception as exc:  # llguidance's GBNF→Lark converter raises on syntax it rejects
        return str(exc).splitlines()[0]
    matcher = llguidance.LLMatcher(_tokenizer(model_path), grammar, log_level=0)
    return matcher.get_error() if matcher.is_error() else ""


def check_with_engines(gbnf: str, model_path: str) -> EngineVerdict:
    """Compile the grammar in both engines and report each verdict."""
    e1 = check_llama_cpp(gbnf, model_path)
    e2 = check_llguidance(gbnf, model_path)
    return EngineVerdict(not e1, not e2, e1, e2)
