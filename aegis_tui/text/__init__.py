"""Text: document loading and segmentation, the per-document index, quantities and their grammar, entity mentions, the lexicon."""
