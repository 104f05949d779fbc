"""Semantic search's state: the model `aide.semantic.model` names, the memories'
vectors, and the `semantic fetch` and `status` commands (docs/semantic.md). How
its cosines mix with words in `search`, `recall --query` and `audit` is hybrid.py's.

Everything here is optional. Without the `semantic` extra or a configured model,
`Semantic.ready()` is False and the callers rank by words as before; a model that is
configured but cannot be used (not fetched yet, offline, the extra missing) is said
once per repository and reason, never an error.
"""

from __future__ import annotations

import os
import time

from git_aide.core.errors import AideError
from git_aide.core.files import LockBusy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    import numpy as np

    from git_aide.app.ahead import Ahead
    from git_aide.cache.folder import Cache
    from git_aide.cache.vectors import Vectors
    from git_aide.embedding.runtime import Embedder
    from git_aide.gitio.repo import Repo
    from git_aide.read.record import Entry
    from git_aide.read.snapshot import Snapshot

    Progress = Callable[[int, int], None]

#: `search` modes, as aide-memory names them.
MODES = ("auto", "keyword", "semantic")
#: Seconds a command may spend embedding memories that have no vector yet before it
#: answers with the vectors it has (`index` and the MCP server embed the rest).
EMBED_BUDGET = 3.0
#: Memories embedded in one go (a progress step; a write of the vectors file).
CHUNK = 64
#: How many questions' vectors a Semantic keeps (Semantic.question).
ASKED_KEPT = 64


def memory_text(entry: Entry) -> str:
    """Return what of a memory is embedded: its what and its why."""
    r = entry.read_record()
    return f"{r['what']} {r['why']}" if r.get("why") else str(r["what"])


class Semantic:
    """Hold the model a repository's config names (loaded on first need) and its vectors."""

    def __init__(self, repo: Repo, cache: Cache, threads: int = 1, ahead: bool = False) -> None:
        """Read the setting of `repo`; `threads`: the model's; `ahead`: a long-lived process
        embeds a question on a worker thread while it searches by words (foresee)."""
        from git_aide.cache.vectors import folder_of
        from git_aide.embedding.catalog import MODEL_KEY

        #: The value of aide.semantic.model (None: not configured).
        self.value = repo.config(MODEL_KEY)
        #: `.git/aide/vectors`.
        self.folder = folder_of(cache.root)
        #: What the user should hear (said by the context, once per call).
        self.notices: list[str] = []
        #: Why the model cannot be used, once that is known.
        self.error: str | None = None
        self._threads = threads
        #: The loaded model's files (model_signature) when it was loaded.
        self.signature: object = None
        self._embedder: Embedder | None = None
        self._vectors: Vectors | None = None
        #: Memories without a vector when the last ensure() stopped.
        self.left = 0
        #: Of the last nearest(): (the view's blob ids, the vectors' rows then, whether
        #: some of those blobs had no vector, the vectors' size then, those blobs with a
        #: vector, their rows): a warm server asks again on the same view.
        self._subset: tuple[object, object, bool, int, Any, Any] | None = None
        #: The vectors of the texts asked lately, by text: a warm server asks the same
        #: question again after a hand edit (its kept answer no longer holds).
        self._asked: dict[str, np.ndarray] = {}
        self._looks_ahead = ahead
        #: What is embedded ahead of a call on a worker thread (app/ahead.py), made on
        #: the first foresee().
        self.ahead: Ahead | None = None

    @property
    def configured(self) -> bool:
        """Tell whether a model is configured (it may still fail to load)."""
        return bool(self.value and self.value.strip())

    def ready(self, say: bool = True) -> bool:
        """Tell whether the model is loaded (loading it now if need be); a failure is said
        once per repository and reason, and the callers go on by words. `say=False`:
        the caller makes the failure its error (said then, not also as a notice)."""
        if self._embedder is not None:
            return True
        if not self.configured or self.error is not None:
            return False
        try:
            self._embedder = self.load()
        except AideError as e:
            self.error = str(e)
            if say:
                self._say_once(f"semantic search is off: {e}")
            return False
        return True

    def load(self) -> Embedder:
        """Load the model and return it; raise AideError saying why it cannot be."""
        from git_aide.embedding.catalog import resolve
        from git_aide.embedding.runtime import Embedder

        assert self.value is not None
        os.makedirs(self.folder, exist_ok=True)
        self.signature = model_signature(self.value)
        return Embedder(resolve(self.value), memo_dir=self.folder, threads=self._threads)

    def changed(self) -> bool:
        """Tell whether the loaded model's files are no longer those of the folder the setting
        names (a re-pointed link, a replaced folder): a long-lived process then loads
        the model again."""
        return self._embedder is not None and model_signature(self.value) != self.signature

    @property
    def embedder(self) -> Embedder:
        """Return the loaded model (ready() first)."""
        assert self._embedder is not None
        return self._embedder

    @property
    def vectors(self) -> Vectors:
        """Return the model's stored vectors, read again when another process added some."""
        from git_aide.cache.vectors import Vectors

        if self._vectors is None:
            self._vectors = Vectors(self.folder, self.embedder.key)
        self._vectors.load()
        self.notices.extend(self._vectors.notices)
        self._vectors.notices.clear()
        return self._vectors

    def _say_once(self, line: str) -> None:
        import hashlib

        mark = os.path.join(self.folder, "said-" + hashlib.sha1(line.encode()).hexdigest()[:12])
        if os.path.exists(mark):
            return
        self.notices.append(line)
        try:
            os.makedirs(self.folder, exist_ok=True)
            with open(mark, "w"):
                pass
        except OSError:
            pass

    def ensure(self, snap: Snapshot, blobs: Iterable[str], budget: float | None = EMBED_BUDGET,
               progress: Progress | None = None) -> int:
        """Embed the memories among `blobs` that have no vector (decoding only those),
        for at most `budget` seconds (None: all); returns how many were embedded."""
        vecs = self.vectors
        todo = vecs.missing(blobs)
        if not todo:
            self.left = 0
            return 0
        entries = snap.entries_of(set(todo))
        return self.embed_entries(entries, budget, progress)

    def embed_entries(self, entries: list[Entry], budget: float | None = EMBED_BUDGET,
                      progress: Progress | None = None) -> int:
        """Embed these memories (those without a vector), for at most `budget` seconds;
        how many were embedded. Each chunk is embedded holding the vectors' lock, after
        reading what other processes stored meanwhile: two `index` runs at once embed
        each memory once."""
        vecs = self.vectors
        todo = list({e.blob: e for e in entries if e.blob not in vecs.rows}.values())
        # Shortest first, so that each batch pads its texts to nearly their own length.
        todo.sort(key=lambda e: len(memory_text(e)))
        start = time.monotonic()
        done = seen = 0
        for at in range(0, len(todo), CHUNK):
            if budget is not None and seen and time.monotonic() - start > budget:
                break
            texts = {e.blob: memory_text(e) for e in todo[at:at + CHUNK]}
            try:
                made = vecs.add_missing(list(texts), self._embedding(texts))
            except LockBusy:
                # Another process has held the vectors file too long: what is missing is
                # embedded another time; this answer goes on without it.
                break
            done += len(made)
            seen += len(texts)
            if progress is not None:
                progress(seen, len(todo))
        self.left = len(todo) - seen
        if self.left:
            self.notices.append(f"semantic search weighed {len(vecs.rows)} memories; "
                                f"{self.left} have no vector yet (git aide index embeds them)")
        return done

    def _embedding(self, texts: dict[str, str]) -> Callable[[list[str]], Any]:
        """Return what embeds some of these texts, by blob id (Vectors.add_missing's `make`)."""
        return lambda blobs: self.embedder.embed([texts[b] for b in blobs])

    def cosines(self, text: str, blobs: Iterable[str]) -> dict[str, float]:
        """Return the cosine of `text` to each of `blobs` that has a vector."""
        have, matrix = self.vectors.of(blobs)
        if not have:
            return {}
        q = self.question(text)
        return dict(zip(have, (matrix @ q).tolist(), strict=True))

    def foresee(self, text: str) -> None:
        """Start embedding a question and weighing it against every stored vector on a worker
        thread (app/ahead.py), while the caller searches by words; question() and
        nearest() take what it made. Only where the Semantic was made to look `ahead` (a
        long-lived process, the model loaded) and for a text not asked lately."""
        if not self._looks_ahead or self._embedder is None or text in self._asked:
            return
        if self.ahead is None:
            from git_aide.app.ahead import Ahead

            self.ahead = Ahead(self.embedder.embed)
        self.ahead.question(text, self.vectors.matrix)

    def _take(self, text: str) -> tuple[np.ndarray, Any, Any] | None:
        """Return what foresee() made of a question (its vector, the matrix it was weighed
        against, the cosines); None when it was not foreseen or the worker failed."""
        return self.ahead.take_question(text) if self.ahead is not None else None

    def question(self, text: str) -> np.ndarray:
        """Return the vector of a question (or any text), embedded once per text among the
        last ASKED_KEPT asked."""
        got = self._asked.get(text)
        if got is None:
            ahead = self._take(text)
            got = self._keep(text, ahead[0] if ahead is not None
                             else self.embedder.embed([text])[0])
        return got

    def _keep(self, text: str, vector: np.ndarray) -> np.ndarray:
        """Keep a question's vector among the last ASKED_KEPT; return it."""
        if len(self._asked) >= ASKED_KEPT:
            self._asked.pop(next(iter(self._asked)))
        self._asked[text] = vector
        return vector

    def nearest(self, text: str, snap: Snapshot, k: int, also: Iterable[str] = (),
                progress: Progress | None = None) -> dict[str, float]:
        """Return the cosine of `text` to the `k` memories of the snapshot nearest to it, and to
        those of `also` (that have a vector). Their vectors are made first, within the
        budget; which rows are the view's is kept for the next call on it (the server's
        warm snapshot), and those of the few files laid over the view are looked up
        each call (a server lays them again at every call while a memory differs from
        the index)."""
        import numpy as np

        base, laid = self._parts(snap)
        vecs = self.vectors
        kept = self._subset
        if kept is None or kept[0] is not base or kept[1] is not vecs.rows \
                or (kept[2] and kept[3] != vecs.size):
            blobs = every_blob(snap)
            self.ensure(snap, blobs, progress=progress)
            vecs = self.vectors
            mine = list(base) if isinstance(base, dict) else blobs
            rows = np.fromiter((vecs.rows.get(b, -1) for b in mine), dtype=np.int64,
                               count=len(mine))
            have = rows >= 0
            kept = (base, vecs.rows, not have.all(), vecs.size,
                    np.array(mine, dtype=object)[have], rows[have])
            self._subset = kept
        elif laid and vecs.missing(laid):
            self.ensure(snap, laid, progress=progress)
            vecs = self.vectors
        names, rows = kept[4], kept[5]
        if laid:
            more = [(b, r) for b in laid if (r := vecs.rows.get(b)) is not None]
            if more:
                names = np.concatenate([names, np.array([b for b, _r in more], dtype=object)])
                rows = np.concatenate([rows, np.array([r for _b, r in more], dtype=np.int64)])
        if vecs.matrix is None or not len(rows):
            return {}
        ahead = self._take(text) if text not in self._asked else None
        q = self.question(text) if ahead is None else self._keep(text, ahead[0])
        sims = ahead[2] if ahead is not None and ahead[1] is vecs.matrix else vecs.matrix @ q
        mine = sims[rows]
        k = min(k, len(mine))
        top = np.argpartition(-mine, k - 1)[:k] if k else np.zeros(0, dtype=np.int64)
        out = dict(zip(names[top].tolist(), mine[top].tolist(), strict=True))
        get = vecs.rows.get
        more = [(b, r) for b in also if (r := get(b)) is not None]
        if more:
            picked = sims[np.fromiter((r for _b, r in more), dtype=np.int64, count=len(more))]
            out.update(zip((b for b, _r in more), picked.tolist(), strict=True))
        return out

    @staticmethod
    def _parts(snap: Snapshot) -> tuple[object, list[str]]:
        """Return what the snapshot's memories are read from (its view's blob ids, kept
        while the view is; else the snapshot) and the blobs of the files laid over the
        view that it does not hold, in blob_ids()'s order."""
        from git_aide.read.snapshot import ViewBlobIds

        ids = snap.blob_ids()
        if ids is None:
            return snap, []
        if isinstance(ids, ViewBlobIds):
            return ids.base, [b for b in ids.laid if b not in ids.base]
        return ids, []


def model_signature(value: str | None) -> object:
    """Return a few stats that tell the model a value of aide.semantic.model names now from
    another: the real paths and stat of its two files (embedding/runtime.signature); None
    when no model is configured."""
    if not value or not value.strip():
        return None
    from git_aide.embedding.catalog import resolve
    from git_aide.embedding.runtime import signature

    try:
        return signature(resolve(value))
    except AideError as e:  # a broken catalog
        return str(e)


def every_blob(snap: Snapshot) -> list[str]:
    """Return the blob ids of a snapshot's memories, from its view when it names them."""
    ids = snap.blob_ids()
    if ids is not None:
        return list(ids)
    return [e.blob for e in snap.entries]


def fetch_model(name: str, mirror: str | None = None, progress: Progress | None = None,
                configure: bool = True) -> dict[str, str]:
    """Run `semantic fetch`: download a known model, check that it loads (before it is
    moved into place: one that does not is not installed), and (`configure`) name it in the
    user's git config; return what was done, for the command to say."""
    from git_aide.embedding import fetch
    from git_aide.embedding.catalog import MODEL_KEY
    from git_aide.embedding.runtime import Embedder, available

    if not available():
        from git_aide.embedding.runtime import NO_EXTRA

        raise AideError(NO_EXTRA)
    model = fetch.model_named(name)

    def loads(folder: str) -> None:
        try:
            Embedder(folder).embed(["a sentence to check that the model runs"])
        except Exception as e:  # noqa: BLE001 -- onnxruntime raises its own kinds when run
            why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise AideError(f"{model.name} does not load, so it was not installed: {why}"
                            ) from None

    folder = fetch.fetch(model, mirror, progress, check=loads)
    if configure:
        from git_aide.gitio.repo import set_user_config

        set_user_config(MODEL_KEY, model.name)
    return {"model": model.name, "folder": folder, "revision": model.revision,
            "licence": model.licence, "configured": MODEL_KEY if configure else ""}


def status_doc(sem: Semantic, snap: Snapshot | None) -> dict[str, object]:
    """Return the `semantic status` document: what is configured, whether it loads, how
    many of the memories have vectors."""
    from git_aide.embedding.catalog import resolve
    from git_aide.embedding.runtime import available

    doc: dict[str, object] = {
        "extra_installed": available(),
        "model": sem.value,
        "folder": resolve(sem.value) if sem.configured and sem.value else None,
        "loads": False, "error": None, "memories": None, "with_vectors": None,
        "vectors_bytes": None,
    }
    if not sem.configured:
        doc["error"] = "no model configured (git aide semantic fetch)"
        return doc
    if not sem.ready(say=False):  # said in the status; search still says it once
        doc["error"] = sem.error
        return doc
    doc["loads"] = True
    vecs = sem.vectors
    doc["dim"] = sem.embedder.dim or vecs.dim or None
    doc["key"] = sem.embedder.key
    if snap is not None:
        blobs = every_blob(snap)
        doc["memories"] = len(set(blobs))
        doc["with_vectors"] = len(set(blobs)) - len(vecs.missing(blobs))
    try:
        doc["vectors_bytes"] = os.path.getsize(vecs.path)
    except OSError:
        doc["vectors_bytes"] = 0
    return doc
