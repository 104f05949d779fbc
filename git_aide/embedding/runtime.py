"""Running a sentence-embedding model: text in, unit vectors out.

The model is an ONNX graph taking `input_ids` and `attention_mask` (and
`token_type_ids` when it has that input) and giving either token vectors (batch x
tokens x dim: they are mean-pooled under the mask, as sentence-transformers pools) or
sentence vectors (batch x dim). Vectors are L2-normalised, so a dot product is a cosine.
"""

from __future__ import annotations

import hashlib
import os

from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy as np
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

#: Tokens a text is cut to (all-MiniLM-L6-v2 was trained on 256).
MAX_TOKENS = 256
#: Texts embedded in one run of the model: sorted by length first, so that a batch
#: pads little. Measured on bench memories (~250 characters): 8 a run took 15 ms a
#: memory on one core, 32 took 19, 128 took 19 (bigger batches pad more).
BATCH = 8
#: What a missing extra looks like to the user.
NO_EXTRA = "semantic search needs the extra: pip install 'git-aide[semantic]'"


def available() -> bool:
    """Tell whether the semantic extra is installed (checked without importing it)."""
    from importlib.util import find_spec

    return all(find_spec(m) is not None for m in ("onnxruntime", "tokenizers", "numpy"))


def model_files(folder: str) -> tuple[str, str]:
    """Find (model.onnx, tokenizer.json) in a model folder; AideError saying what is missing,
    or which is not a regular file of at most MAX_BYTES (a FIFO or /dev/zero would hang
    whatever reads it: a link to a regular file is fine)."""
    (onnx, _st), (tok, _st) = _model_stats(folder)
    return onnx, tok


def _model_stats(folder: str) -> tuple[tuple[str, os.stat_result], tuple[str, os.stat_result]]:
    """Find model_files() with the stat of each (links followed); AideError as it says."""
    if not os.path.isdir(folder):
        raise AideError(f"no model at {folder} (git aide semantic fetch gets one)")
    onnx = os.path.join(folder, "model.onnx")
    if not os.path.lexists(onnx):
        found = sorted(n for n in os.listdir(folder) if n.endswith(".onnx"))
        sub = os.path.join(folder, "onnx")
        if not found and os.path.isdir(sub):
            found = sorted(os.path.join("onnx", n) for n in os.listdir(sub)
                           if n.endswith(".onnx"))
        if len(found) != 1:
            raise AideError(f"{folder} holds no model.onnx")
        onnx = os.path.join(folder, found[0])
    tok = os.path.join(folder, "tokenizer.json")
    if not os.path.lexists(tok):
        raise AideError(f"{folder} holds no tokenizer.json")
    return (onnx, _regular(folder, onnx)), (tok, _regular(folder, tok))


#: The largest model file read: anything larger is not a sentence model.
MAX_BYTES = 4 << 30


def _regular(folder: str, path: str) -> os.stat_result:
    """Stat a model's file (links followed); AideError unless it is a regular
    file of at most MAX_BYTES."""
    import stat

    name = os.path.relpath(path, folder)
    try:
        st = os.stat(path)
    except OSError as e:
        raise AideError(f"cannot load the model in {folder}: {name}: "
                        f"{e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise AideError(f"cannot load the model in {folder}: {name} is not a regular file")
    if st.st_size > MAX_BYTES:
        raise AideError(f"cannot load the model in {folder}: {name} is larger than "
                        f"{MAX_BYTES >> 30} GiB")
    return st


def signature(folder: str) -> object:
    """Return what tells one model's files from another's, cheaply: the path and stat of its
    two files, links followed (a re-pointed link or a replaced folder gives other files:
    another device or inode; a file written again, another size or time); why not, when
    the folder holds no usable model. A warm server asks it at every call."""
    try:
        return tuple((p, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                     for p, st in _model_stats(folder))
    except AideError as e:
        return str(e)


def identity(folder: str, memo_dir: str | None = None) -> str:
    """Return what the vectors of this model are keyed by: a digest of its two files' bytes, so
    that the same model anywhere shares them and a changed one never reuses them.

    Hashing 20-90 MB costs tens of milliseconds: the digest is kept in `memo_dir` (the
    repository's vectors folder; the model's own folder may be read-only or shared),
    keyed by the files' paths and stat, and computed again only when they change.
    """
    from git_aide.core.files import stat_sig

    paths = model_files(folder)
    sig = repr([(p, stat_sig(p)) for p in paths])
    memo = None
    if memo_dir is not None:
        memo = os.path.join(memo_dir, "model-" + hashlib.sha1(sig.encode()).hexdigest()[:16])
    if memo is None:
        return _digest(paths)
    try:
        with open(memo, encoding="utf-8") as f:
            kept_sig, _, digest = f.read().partition("\n")
        if kept_sig == sig and len(digest) == 24:
            return digest
    except OSError:
        pass
    digest = _digest(paths)
    try:
        from git_aide.core.files import write_atomic

        write_atomic(memo, f"{sig}\n{digest}".encode(), sync=False)
    except OSError:
        pass  # hashed again next time
    return digest


def _digest(paths: tuple[str, str]) -> str:
    """Return a digest of the files' bytes; each opened without blocking (a FIFO put there
    since model_files() looked) and read only as a regular file, to its size."""
    import stat

    h = hashlib.sha256()
    for p in paths:
        where, name = os.path.split(p)
        try:
            fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as e:
            raise AideError(f"cannot load the model in {where}: {name}: "
                            f"{e.strerror or e}") from None
        with open(fd, "rb") as f:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
                raise AideError(f"cannot load the model in {where}: {name} is not a "
                                "regular file")
            left = st.st_size
            while left > 0:
                block = f.read(min(left, 1 << 20))
                if not block:
                    break
                h.update(block)
                left -= len(block)
    return h.hexdigest()[:24]


class Embedder:
    """Hold a loaded model: `embed` turns texts into unit vectors."""

    def __init__(self, folder: str, memo_dir: str | None = None, threads: int = 1) -> None:
        """Load the model in `folder`; AideError (one line) when it cannot be.
        `memo_dir`: where its identity is remembered; `threads`: onnxruntime's."""
        if not available():
            raise AideError(NO_EXTRA)
        onnx, tok = model_files(folder)
        #: The model's folder.
        self.folder = folder
        #: The key its vectors are stored under.
        self.key = identity(folder, memo_dir)
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(tok)
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.no_padding()
            opts = ort.SessionOptions()
            # One thread for queries: an agent's calls run beside the agent's own work,
            # and a dozen tokens gain nothing from more; `index` may take the machine.
            opts.intra_op_num_threads = max(1, threads)
            opts.inter_op_num_threads = 1
            opts.log_severity_level = 3
            session = ort.InferenceSession(onnx, opts, providers=["CPUExecutionProvider"])
        except AideError:
            raise
        except Exception as e:  # onnxruntime and tokenizers raise their own kinds
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise AideError(f"cannot load the model in {folder}: {first}") from None
        self._tokenizer: Tokenizer = tokenizer
        self._session: InferenceSession = session
        self._inputs = {i.name for i in session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= self._inputs:
            raise AideError(f"the model in {folder} does not take input_ids and attention_mask")
        #: The length of its vectors (known after the first embedding).
        self.dim = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed `texts` as unit vectors (len(texts) x dim, float32), in their order."""
        import numpy as np

        out: list[np.ndarray | None] = [None] * len(texts)
        # One text (a question) is tokenized on this thread: encode_batch hands even one
        # to a pool of threads that spin on every core a while after (beside a server's
        # call on another thread, that call then waited for a core, 1-3 ms).
        encodings = [self._tokenizer.encode(texts[0])] if len(texts) == 1 \
            else self._tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for at in range(0, len(order), BATCH):
            batch = order[at:at + BATCH]
            width = max(1, max(len(encodings[i].ids) for i in batch))
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                seq = encodings[i].ids
                ids[row, :len(seq)] = seq
                mask[row, :len(seq)] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            result = self._session.run(None, feed)[0]
            vecs = self._pool(np.asarray(result, dtype=np.float32), mask)
            for row, i in enumerate(batch):
                out[i] = vecs[row]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = [v for v in out if v is not None]
        assert len(vectors) == len(texts)  # every text was in one batch
        return np.stack(vectors)

    def _pool(self, result: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Pool token vectors into sentence vectors of unit length, averaged under the mask."""
        import numpy as np

        if result.ndim == 3:
            m = mask[:, :, None].astype(np.float32)
            summed = (result * m).sum(axis=1)
            result = summed / np.maximum(m.sum(axis=1), 1.0)
        norms = np.linalg.norm(result, axis=1, keepdims=True)
        result = result / np.maximum(norms, 1e-12)
        self.dim = int(result.shape[1])
        return result.astype(np.float32)
