"""The auditors' report files: a kind's selector rows laid out as a Document (kinds.py),
then written as CSV, JSON or PDF (to_csv.py, to_json.py, to_pdf.py, charts.py). The
renderers only format what the Document holds; no figure is computed twice."""
