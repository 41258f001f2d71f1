"""HTML/CSS building blocks of the synthetic screens (a desktop, its windows, dialogs, web pages).

Every function returns an HTML string. Elements that carry ground truth are tagged with
`data-gt` attributes (see rpa_mcp/screens/render.py for what is measured).
"""
