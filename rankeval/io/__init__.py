"""Reading and writing the files rankeval works with: CSV, TSV, Parquet, TREC and RecBole's atomic files.

Every write goes to a temporary file in the target's folder and replaces the target
only when whole: an interrupted write leaves the old file, never half a new one.
"""

from ._files import format_of, read_frame, read_trec_qrels, read_trec_run, write_frame

__all__ = ["read_frame", "read_trec_run", "read_trec_qrels", "write_frame", "format_of"]
