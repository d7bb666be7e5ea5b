"""ROUGE-1 the way ADK's response_match_score computes it, in Python, for bench/rouge.bench.ts.

rouge_score is not installable here (no PyPI), so this is a rouge_score-equivalent written from
its documented behaviour: lowercase, [^a-z0-9]+ -> space, split, NLTK PorterStemmer on tokens
longer than 3, keep ^[a-z0-9]+$; clipped unigram overlap, P = o/max(|cand|,1), R = o/max(|ref|,1),
F = 2PR/(P+R) or 0. NLTK's stemmer is the real one.

Usage: python3 bench/rouge_nltk.py <pairs.json>   (a JSON list of [candidate, reference])
Prints JSON: python and nltk versions, timings, peak RSS and every F-measure.
"""
import collections
import json
import platform
import re
import resource
import sys
import time

import nltk
from nltk.stem.porter import PorterStemmer

STEMMER = PorterStemmer()  # default mode: NLTK_EXTENSIONS
NON_ALNUM = re.compile(r"[^a-z0-9]+")
SPACES = re.compile(r"\s+")
VALID = re.compile(r"^[a-z0-9]+$")


def tokenize(text):
    text = NON_ALNUM.sub(" ", text.lower())
    tokens = [STEMMER.stem(t) if len(t) > 3 else t for t in SPACES.split(text)]
    return [t for t in tokens if VALID.match(t)]


def rouge1(candidate, reference):
    target = collections.Counter(tokenize(reference))
    prediction = collections.Counter(tokenize(candidate))
    overlap = sum(min(n, prediction[t]) for t, n in target.items())
    precision = overlap / max(sum(prediction.values()), 1)
    recall = overlap / max(sum(target.values()), 1)
    fmeasure = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, fmeasure


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        pairs = json.load(f)

    start = time.perf_counter()
    fmeasures = [rouge1(c, r)[2] for c, r in pairs]
    score_seconds = time.perf_counter() - start

    # The stemmer alone on every token longer than 3 (what rouge_score stems), no memo.
    words = [t for c, r in pairs for t in SPACES.split(NON_ALNUM.sub(" ", (c + " " + r).lower())) if len(t) > 3]
    start = time.perf_counter()
    for w in words:
        STEMMER.stem(w)
    stem_seconds = time.perf_counter() - start

    print(json.dumps({
        "python": platform.python_version(),
        "nltk": nltk.__version__,
        "score_seconds": score_seconds,
        "stem_seconds": stem_seconds,
        "stemmed_words": len(words),
        "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "fmeasures": fmeasures,
    }))


if __name__ == "__main__":
    main()
