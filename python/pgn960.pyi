"""Chess960 (Fischer random chess) archives as Arrow tables.

Start positions, one row per game, statistics per start position,
validation and repair, as the ``pgn960`` command line computes them: the
module is the same Rust library. Tables are ``pyarrow`` tables built in
Rust and handed over without a copy; Polars (``pl.from_arrow``), pandas
(``table.to_pandas()``) and DuckDB take them as they are.

An input (``paths``, ``src``) is a path (``str`` or ``os.PathLike``) to a
PGN file, plain or compressed with gzip, zstd, bzip2 or xz (recognised by
its bytes, not its name), or ``bytes`` of PGN (named ``<bytes>`` in the
``file`` column), or a list of them. The GIL is released while Rust
reads; Ctrl-C stops a long read. An input that cannot be read raises
``OSError`` (or ``FileNotFoundError``, ...), a bad argument ``ValueError``,
both with the command line's one-line message.
"""

import os
from typing import Any, Iterator, Literal, Sequence, Union, final

import pyarrow
from typing_extensions import TypeAlias

__all__ = [
    "__version__",
    "id",
    "position",
    "table",
    "Position",
    "games",
    "iter_games",
    "schema",
    "GameBatches",
    "count",
    "stats",
    "dfrc_stats",
    "_restore_counts",
    "Counts",
    "validate",
    "tag",
    "fix",
    "filter",
]

__version__: str

_Input: TypeAlias = Union[str, os.PathLike[str], bytes, bytearray]
_Inputs: TypeAlias = Union[_Input, Sequence[_Input]]
_Names: TypeAlias = Union[str, Sequence[str]]
_Positions: TypeAlias = Union[str, Sequence[Union[int, str]]]

@final
class Position:
    """A Chess960 start position, as ``pgn960 pos`` prints it."""

    @property
    def scharnagl(self) -> int:
        """The Scharnagl number, 0-959 (518 is the standard array)."""
    @property
    def fritz9(self) -> int:
        """The Fritz9 number, 1-960."""
    @property
    def position(self) -> str:
        """The back rank, upper case, files a to h (``"RNBQKBNR"``)."""
    @property
    def xfen(self) -> str:
        """The start position as a FEN with X-FEN castling (``KQkq``)."""
    @property
    def shredder_fen(self) -> str:
        """The start position as a FEN with Shredder-FEN castling (``HAha``)."""

def id(arrangement_or_fen: str, /) -> Union[Position, tuple[Position, Position]]:
    """The start of an arrangement (``"RNBQKBNR"``, either case) or a FEN
    (any string with a ``/``), as ``pgn960 id`` reads it: the ``Position``
    both sides start from, or for a Double FRC FEN the pair
    ``(white, black)``. Raises ``ValueError`` for anything else."""

def position(n: int, /, fritz9: bool = False) -> Position:
    """The position numbered ``n``: Scharnagl 0-959 (960 is another name
    for 0), or Fritz9 1-960 with ``fritz9=True``; as ``pgn960 pos``.
    Raises ``ValueError`` for any other number."""

def table() -> pyarrow.Table:
    """All 960 start positions in Scharnagl order, with the columns of
    ``pgn960 table``: scharnagl, fritz9 (int32), position, xfen,
    shredder_fen (string), then the features: king_file, queen_file,
    knight_file_1, knight_file_2, queenside_rook_file, kingside_rook_file,
    light_bishop_file, dark_bishop_file (string, ``a`` to ``h``) and
    mirror_scharnagl (int32)."""

def schema(*, tags: _Names | None = None, duplicates: bool = False) -> pyarrow.Schema:
    """The schema of ``games``' tables: the columns of ``pgn960 games``
    (with ``duplicates``, of ``pgn960 games --duplicates``) and one string
    column per tag of ``tags``."""

def games(
    paths: _Inputs,
    *,
    tags: _Names | None = None,
    duplicates: bool = False,
    threads: int | None = None,
    batch_size: int = 65536,
) -> pyarrow.Table:
    """One row per game, with exactly the columns and types of
    ``pgn960 games`` (its Parquet file read back), in input order, plus
    one string column per tag named in ``tags`` (``"WhiteFideId,BlackFideId"``
    or a list). With ``duplicates``, the columns of ``pgn960 games
    --duplicates``: fingerprint, duplicate_of_file, duplicate_of_game (the
    first occurrence among all of ``paths`` of a game read before; up to
    458,752 distinct games, else ``RuntimeError``). Read on ``threads``
    threads (default: one per core); the table is held whole in memory
    (see ``iter_games``)."""

@final
class GameBatches(Iterator[pyarrow.RecordBatch]):
    """The record batches of ``iter_games``, read one batch ahead on a
    thread of their own."""

    @property
    def schema(self) -> pyarrow.Schema:
        """The schema of every batch."""
    def __iter__(self) -> GameBatches: ...
    def __next__(self) -> pyarrow.RecordBatch: ...
    def close(self) -> None:
        """Stops reading; the iterator then ends."""

def iter_games(
    paths: _Inputs,
    *,
    tags: _Names | None = None,
    duplicates: bool = False,
    threads: int | None = None,
    batch_size: int = 65536,
) -> GameBatches:
    """As ``games``, one ``pyarrow.RecordBatch`` of up to ``batch_size``
    rows at a time, read as they are taken: memory stays bounded whatever
    the size of the archive."""

@final
class Counts:
    """Per-position counts of a ``stats`` run: exact integer sums, so that
    the counts of shards add up (``a + b``, ``sum(counts)``) to exactly
    the counts of one run over all of them. They pickle."""

    def __init__(self) -> None:
        """No counts: the start of a sum."""
    @property
    def grouped(self) -> bool:
        """Whether the rows are grouped (a leading ``group`` column)."""
    @property
    def games_read(self) -> dict[str, int]:
        """The games read, by kind (zero for counts read from a CSV)."""
    @property
    def counted(self) -> int:
        """The games counted in the table."""
    @property
    def below_min_elo(self) -> int:
        """The games left out by ``min_elo``."""
    @property
    def unplayed(self) -> dict[str, int]:
        """The games whose result was not played, by reason (``abandoned``,
        ``rules_infraction``, ``unterminated``, ``emergency``, ``death``):
        left out, or kept with ``keep_unplayed``."""
    @property
    def duplicates(self) -> int:
        """The copies of games read before, left out (zero with
        ``keep_duplicates``, and for counts read from a CSV)."""
    def __add__(self, other: Counts, /) -> Counts: ...
    def __radd__(self, other: Union[Counts, Literal[0]], /) -> Counts: ...
    def table(self, *, all_positions: bool = False) -> pyarrow.Table:
        """The table of ``pgn960 stats``' CSV, typed: int32 position
        numbers, uint64 counts, int64 rating sums, float64 derived values
        at full precision, null where the CSV's cell is empty."""
    def summary(self) -> dict[str, Any]:
        """The tests across positions, as ``pgn960 stats --summary``
        writes them."""
    def to_csv(
        self, path: str | os.PathLike[str] | None = None, *, all_positions: bool = False
    ) -> str:
        """The CSV ``pgn960 stats`` writes, byte for byte (also written to
        ``path`` when given)."""
    @classmethod
    def read_csv(cls, path: str | os.PathLike[str]) -> Counts:
        """The counts of a CSV written by ``pgn960 stats``, as
        ``pgn960 stats --merge`` reads it."""

def count(
    paths: _Inputs,
    *,
    group_by: str | None = None,
    min_elo: int | None = None,
    include_standard: bool = False,
    keep_unplayed: bool = False,
    keep_duplicates: bool = False,
    threads: int | None = None,
) -> Counts:
    """Counts the games of ``paths`` per start position, as
    ``pgn960 stats`` does, optionally per group (``group_by``: a tag name
    or ``"year"``), only games where both players are rated at least
    ``min_elo``, standard games too as 518 with ``include_standard``,
    games whose result was not played too with ``keep_unplayed``, each
    game once across ``paths`` (its copies left out) unless
    ``keep_duplicates``."""

def stats(
    paths: _Inputs,
    *,
    group_by: str | None = None,
    min_elo: int | None = None,
    include_standard: bool = False,
    keep_unplayed: bool = False,
    keep_duplicates: bool = False,
    all_positions: bool = False,
    threads: int | None = None,
) -> tuple[pyarrow.Table, dict[str, Any]]:
    """Per-start-position results as ``pgn960 stats`` writes them: the
    table of its CSV and the tests of its ``--summary`` JSON."""

def dfrc_stats(
    paths: _Inputs,
    *,
    group_by: str | None = None,
    min_elo: int | None = None,
    keep_duplicates: bool = False,
    all_positions: bool = False,
    threads: int | None = None,
) -> dict[str, pyarrow.Table]:
    """The Double FRC games as ``pgn960 stats --dfrc-pairs --dfrc-white
    --dfrc-black`` writes them: ``"pairs"``, ``"white"`` and ``"black"``."""

def validate(
    paths: _Inputs, *, moves: bool = True, threads: int | None = None
) -> pyarrow.Table:
    """Every problem of every game, as ``pgn960 validate`` reports them:
    file, game, line, severity, code, message."""

def tag(
    src: _Inputs,
    dst: str | os.PathLike[str],
    *,
    fritz9: bool = False,
    include_standard: bool = False,
    threads: int | None = None,
) -> dict[str, Any]:
    """Adds or corrects ``Chess960Id`` tags, changing no other byte, into
    ``dst`` (compressed as its name says), as ``pgn960 tag src -o dst``;
    returns its counts."""

def fix(
    src: _Inputs,
    dst: str | os.PathLike[str],
    *,
    castling: Literal["keep", "xfen", "shredder"] = "keep",
    variant_name: str | None = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """Repairs what ``validate`` finds in Chess960 headers, changing no
    other byte, into ``dst``, as ``pgn960 fix src -o dst``; returns its
    counts."""

def filter(
    src: _Inputs,
    dst: str | os.PathLike[str],
    *,
    position: _Positions | None = None,
    fritz9: _Positions | None = None,
    arrangement: _Names | None = None,
    include_standard: bool = False,
    kind: _Names | None = None,
    min_elo: int | None = None,
    finding: _Names | None = None,
    unplayed: _Names | bool | None = None,
    played: bool = False,
    invert: bool = False,
    threads: int | None = None,
) -> dict[str, Any]:
    """Writes the games that meet every criterion, byte for byte, into
    ``dst``, as ``pgn960 filter src -o dst``; returns the games read and
    selected, by kind."""

def _restore_counts(
    csv: str,
    grouped: bool,
    kinds: list[int],
    counted: int,
    below_min_elo: int,
    unplayed: list[int] = ...,
    duplicates: int = ...,
) -> Counts:
    """Rebuilds pickled ``Counts``."""
