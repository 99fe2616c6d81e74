"""Answering: relevance, prompts, extraction strategies, the answer state machine, the Tier-1 verifier, the realizer, evaluation."""
