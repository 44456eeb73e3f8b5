"""The program as text plus syntax tree: spans, patches, sizes, re-indentation."""
