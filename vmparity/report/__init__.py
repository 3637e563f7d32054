"""`vmparity report`: Markdown + self-contained HTML for one run, with plots."""
