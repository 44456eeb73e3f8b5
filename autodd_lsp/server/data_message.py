"""What the editor's result message says of the data the result reads (notes/data.md), and the
data folder written beside the output for the files not written into the result."""

from __future__ import annotations

from autodd_lsp.engine import Summary
from autodd_lsp.files import write_data_folder


def data_message(summary: Summary, output_path: str) -> str:
    """The data folder written (the files not written into the result), and what the result
    message says of the data: each file's sizes, and where it is."""
    beside, written = summary.data_in("folder"), summary.data_in("program")
    message = ""
    if written:
        message += f" Written into the result: {'; '.join(d.describe() for d in written)}."
    if beside:
        try:
            folder = write_data_folder(output_path, summary.text, ((d.name, d.data) for d in beside))
            message += f" The data it reads, cut: {'; '.join(d.describe() for d in beside)}; in {folder}/."
        except OSError as error:
            message += f" Its data folder could not be written: {error.strerror or error}."
    dropped = summary.data_in("dropped")
    if dropped:
        message += f" {len(dropped)} other file(s) it read are not needed."
    return message
