"""Stage 0, what every stage shares: errors, character spans, file edges, the one normaliser,
the one lexical tokeniser, number formatting, self-describing settings, the ranges a link may
set, bounded JSON reading, the process's small memos."""
