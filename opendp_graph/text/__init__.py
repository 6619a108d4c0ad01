"""Text in message logs, and language models from released counts.

* :mod:`._tokens`: tokens (scikit-learn's analyzer, behind the ``text`` extra), n-grams **per
  message** (:func:`ngram_counts`; :func:`delivery_ngrams` for OpenDP's Polars Context with the
  pair as the privacy unit's identifier) or **per pair** (:func:`pair_ngram_graph`, the edge
  labels that :func:`~opendp_graph.make_label_counts` releases under edge, group and Pufferfish
  privacy) or **per person** (:func:`person_ngram_table`: each message with its owners), and a
  public snapshot split off by time (:func:`split_by_time`);
* :mod:`._release`: every n-gram order's counts under one budget (:func:`make_ngram_count_release`:
  Gaussian under zCDP or Laplace, composed by OpenDP), and person-level counts on a log whose
  messages have several owners (:func:`make_person_ngram_counts` on :func:`person_text_domain`);
* :mod:`._private_lm`: a model of the private period's own n-grams in one ``(ε, δ)`` measurement
  (:func:`make_private_language_model`: a DP set union per pair, mixed with the snapshot's model;
  :func:`private_language_model` does it from a message log and a public snapshot in one call);
* :mod:`._private_topics`: topics of the private period's own word co-occurrences, words the
  snapshot never saw included (:func:`make_private_topics`, the same union);
* :mod:`._lm`: :class:`NGramModel`, interpolated Kneser–Ney from counts (pure post-processing of
  a release, robust to noisy and negative counts), scoring, sampling, and the ARPA format;
* :mod:`._topics`: word co-occurrence per pair of people (:func:`pair_cooccurrence_graph`),
  topics by scikit-learn's NMF of released counts (:func:`topics_from_cooccurrence`), and the
  NPMI coherence (:func:`npmi_coherence`).

An adapter like :mod:`opendp_graph.polars`: it reads tables and builds graphs; the releases are
the package's queries and OpenDP's noise.
"""

from ._lm import MixtureModel, NGramModel, mixture, read_arpa, released_share
from ._private_lm import PrivateLanguageModel, make_private_language_model, private_language_model, then_private_language_model
from ._private_topics import PrivateTopics, make_private_topics, then_private_topics
from ._release import (
    NGramRelease,
    make_ngram_count_composition,
    make_ngram_count_release,
    make_person_ngram_counts,
    person_text_domain,
    then_ngram_count_release,
    then_person_ngram_counts,
)
from ._tokens import (
    BOS,
    EOS,
    UNK,
    delivery_ngrams,
    fold_unknown,
    message_edge_frame,
    message_tokens,
    ngram_counts,
    ngrams,
    pair_ngram_graph,
    person_ngram_table,
    split_by_time,
    tokenizer,
)
from ._topics import (
    Topics,
    cooccurrence_key,
    npmi_coherence,
    pair_cooccurrence_graph,
    person_cooccurrence_table,
    topics_from_cooccurrence,
)

__all__ = [
    "BOS",
    "EOS",
    "UNK",
    "MixtureModel",
    "NGramModel",
    "mixture",
    "message_edge_frame",
    "NGramRelease",
    "make_ngram_count_release",
    "make_ngram_count_composition",
    "then_ngram_count_release",
    "make_person_ngram_counts",
    "make_private_language_model",
    "private_language_model",
    "PrivateTopics",
    "make_private_topics",
    "PrivateLanguageModel",
    "person_ngram_table",
    "person_text_domain",
    "Topics",
    "cooccurrence_key",
    "npmi_coherence",
    "pair_cooccurrence_graph",
    "person_cooccurrence_table",
    "topics_from_cooccurrence",
    "delivery_ngrams",
    "fold_unknown",
    "tokenizer",
    "message_tokens",
    "ngram_counts",
    "ngrams",
    "pair_ngram_graph",
    "read_arpa",
    "released_share",
    "split_by_time",
    "then_private_language_model",
    "then_private_topics",
    "then_person_ngram_counts",
]
