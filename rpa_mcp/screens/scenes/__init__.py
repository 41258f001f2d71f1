"""Scene builders: a seeded random generator and a look in, a `Scene` (HTML + truth hints) out."""
