"""The language of the screen, from the words of its window titles and element names.

Each new window title and each element name votes: French function words and desktop vocabulary
(de, le, patient·e, enregistrer, fenêtre...) and accented letters vote French; English
ones vote English. The intents follow the language the person chose at `shadow_start`,
else the agent's locale, else this vote once it is clear (`decided`), else the default.
"""

from __future__ import annotations

import re

from rpa_mcp.shadow.phrases import words

FRENCH = words(
    """
    de du des le la les un une et pour dans sur avec sans au aux ou par rechercher recherche
    enregistrer enregistré enregistrée fichier dossier fenêtre boîte réception onglet annuler
    valider imprimer nouveau nouvelle ouvrir fermer supprimer modifier saisie synthèse imagerie
    ordonnance observation observations prénom nom naissance séjour médecin accueil paramètres aide
    """
)
ENGLISH = words(
    """
    the of and for in on with without to by or search save saved file record window inbox tab cancel
    open close new delete edit settings help summary imaging prescription note notes first last name
    birth home welcome
    """
)
_WORD = re.compile(r"[^\W\d_]+")
_ACCENTS = re.compile(r"[éèêàùçôîœ]")
MIN_VOTES = 3


def vote(text: str, votes: dict[str, int]) -> None:
    """Add the votes of one title or label."""
    words = [w.lower() for w in _WORD.findall(text)]
    fr = sum(1 for w in words if w in FRENCH) + (1 if _ACCENTS.search(text.lower()) else 0)
    en = sum(1 for w in words if w in ENGLISH)
    if fr > en:
        votes["fr"] = votes.get("fr", 0) + 1
    elif en > fr:
        votes["en"] = votes.get("en", 0) + 1


def decided(votes: dict[str, int]) -> str | None:
    fr, en = votes.get("fr", 0), votes.get("en", 0)
    if fr + en < MIN_VOTES:
        return None
    if fr >= 2 * en and fr > en:
        return "fr"
    if en >= 2 * fr and en > fr:
        return "en"
    return None
