"""The words of intents, in French and English: templates, and how a label becomes a phrase.

An intent names the effect and the value when the evidence allows it: a search field
submitted with Enter is "Rechercher le patient 'DURAND'"; a row double-clicked that opens
its record is "Ouvrir le dossier 'DURAND Alice'"; a multi-line field is "Saisir
l'observation"; a button whose label is a verb is that verb ("Enregistrer").
"""

from __future__ import annotations

import re

from rpa_mcp.vision.ocr import normalize_text


def words(text: str) -> frozenset[str]:
    """A vocabulary written as words separated by spaces and line breaks."""
    return frozenset(text.split())


TEXTS = {
    "en": {
        "click": "Click '{label}'",
        "click_in": "Click in '{label}'",
        "click_at": "Click at ({x}, {y})",
        "double_click": "Double-click '{label}'",
        "double_click_in": "Double-click in '{label}'",
        "double_click_at": "Double-click at ({x}, {y})",
        "right_click": "Right-click '{label}'",
        "right_click_in": "Right-click in '{label}'",
        "right_click_at": "Right-click at ({x}, {y})",
        "switch_tab": "Switch to tab '{label}'",
        "type_in": "Type text in '{label}'",
        "type": "Type text",
        "type_value_in": "Type '{value}' in '{label}'",
        "type_value": "Type '{value}'",
        "enter_field": "Enter {noun}",
        "search_for": "Search for {noun} '{value}'",
        "search_in": "Search for '{value}' in '{label}'",
        "search": "Search for '{value}'",
        "type_secret_in": "Type the password in '{label}'",
        "type_secret": "Type the password",
        "save": "Save ({keys})",
        "shortcut": "Press {keys}",
        "key": "Press {keys}",
        "scroll_in": "Scroll {direction} in '{label}'",
        "scroll": "Scroll {direction}",
        "up": "up",
        "down": "down",
        "left": "left",
        "right": "right",
        "open_app": "Open {app}",
        "focus": "Switch to window '{label}'",
        "open_record": "Open the record '{label}'",
        "open_item": "Open '{label}'",
        "select": "Select '{label}'",
        "choose_menu": "Choose '{label}' in the menu",
        "choose_option": "Choose '{value}' in '{label}'",
        "choose_option_at": "Choose '{value}' in a drop-down list",
        "choose_unknown": "Choose an option in '{label}'",
        "check": "Tick '{label}'",
        "uncheck": "Untick '{label}'",
        "menu_noise": "Open and close the context menu of '{label}'",
        "detour": "Detour to {app}",
        "the": "the {noun}",
    },
    "fr": {
        "click": "Cliquer sur '{label}'",
        "click_in": "Cliquer dans '{label}'",
        "click_at": "Cliquer en ({x}, {y})",
        "double_click": "Double-cliquer sur '{label}'",
        "double_click_in": "Double-cliquer dans '{label}'",
        "double_click_at": "Double-cliquer en ({x}, {y})",
        "right_click": "Clic droit sur '{label}'",
        "right_click_in": "Clic droit dans '{label}'",
        "right_click_at": "Clic droit en ({x}, {y})",
        "switch_tab": "Aller sur l'onglet '{label}'",
        "type_in": "Saisir du texte dans '{label}'",
        "type": "Saisir du texte",
        "type_value_in": "Saisir '{value}' dans '{label}'",
        "type_value": "Saisir '{value}'",
        "enter_field": "Saisir {noun}",
        "search_for": "Rechercher {noun} '{value}'",
        "search_in": "Rechercher '{value}' dans '{label}'",
        "search": "Rechercher '{value}'",
        "type_secret_in": "Saisir le mot de passe dans '{label}'",
        "type_secret": "Saisir le mot de passe",
        "save": "Enregistrer ({keys})",
        "shortcut": "Appuyer sur {keys}",
        "key": "Appuyer sur {keys}",
        "scroll_in": "Faire défiler vers le {direction} dans '{label}'",
        "scroll": "Faire défiler vers le {direction}",
        "up": "haut",
        "down": "bas",
        "left": "gauche",
        "right": "droite",
        "open_app": "Ouvrir {app}",
        "focus": "Passer à la fenêtre '{label}'",
        "open_record": "Ouvrir le dossier '{label}'",
        "open_item": "Ouvrir '{label}'",
        "select": "Sélectionner '{label}'",
        "choose_menu": "Choisir '{label}' dans le menu",
        "choose_option": "Choisir '{value}' dans '{label}'",
        "choose_option_at": "Choisir '{value}' dans une liste déroulante",
        "choose_unknown": "Choisir une option dans '{label}'",
        "check": "Cocher '{label}'",
        "uncheck": "Décocher '{label}'",
        "menu_noise": "Ouvrir puis fermer le menu contextuel de '{label}'",
        "detour": "Détour par {app}",
        "the": "{noun}",
    },
}

SEARCH_VERBS = frozenset({"rechercher", "recherche", "chercher", "trouver", "search", "find", "lookup", "filter"})
ARTICLES = frozenset({"un", "une", "le", "la", "les", "l", "des", "du", "de", "d", "a", "an", "the", "for", "par"})
VERBS = {
    "fr": words(
        """
        enregistrer valider annuler rechercher ouvrir fermer imprimer envoyer ajouter supprimer modifier
        créer confirmer appliquer signer télécharger importer exporter actualiser rafraîchir terminer
        sauvegarder copier coller prescrire transmettre archiver verrouiller déverrouiller démarrer
        arrêter quitter connecter déconnecter chercher éditer joindre programmer planifier clôturer
        publier
        """
    ),
    "en": words(
        """
        save search open close print cancel submit send add delete remove edit create confirm apply sign
        download upload import export refresh finish validate copy paste start stop quit find attach
        schedule publish log
        """
    ),
}
RECORD_WORDS = ("dossier", "record", "chart", "fiche")
# Names of a control, not of what it holds: "Saisir l'éditeur de texte" would mean nothing.
CONTROL_WORDS = words(
    """
    editeur editor zone champ field box saisie input document texte text edit contenu content area
    """
)
# French nouns of the hospital desktop whose gender the ending does not tell.
GENDER = {
    "patient": "m",
    "patiente": "f",
    "dossier": "m",
    "commentaire": "m",
    "compte rendu": "m",
    "motif": "m",
    "texte": "m",
    "message": "m",
    "courrier": "m",
    "traitement": "m",
    "diagnostic": "m",
    "examen": "m",
    "service": "m",
    "médecin": "m",
    "antécédents": "p",
    "note": "f",
    "synthèse": "f",
    "anamnèse": "f",
    "ordonnance": "f",
    "date": "f",
    "chambre": "f",
}
_FEMININE_ENDINGS = ("tion", "sion", "té", "ure", "ence", "ance", "ie", "ée", "ette", "elle", "ade", "ise")


def fr_noun(label: str) -> str:
    """'Observation' -> "l'observation"; 'Commentaire' -> 'le commentaire'."""
    noun = " ".join(label.split()).lower()
    gender = GENDER.get(noun) or ("f" if noun.split()[-1].endswith(_FEMININE_ENDINGS) else "m")
    if gender == "p":
        return f"les {noun}"
    if noun[:1] in "aeiouyéèêh":
        return f"l'{noun}"
    return f"{'la' if gender == 'f' else 'le'} {noun}"


def noun_phrase(label: str, locale: str) -> str | None:
    """A short label that reads as a noun, with its article; None for a sentence or a code.

    A control word before the noun is dropped: "Texte de l'observation" is the observation.
    """
    words = label.split()
    if len(words) >= 2 and normalize_text(words[0]) in CONTROL_WORDS:
        rest = re.sub(r"^(?:de\s+la|de\s+l['’]|de|du|des|d['’]|of\s+the|of)\s*", "", " ".join(words[1:]), flags=re.I)
        if rest and rest != " ".join(words[1:]):
            words = rest.split()
            label = rest
    elif (
        len(words) == 2 and normalize_text(words[1]) in CONTROL_WORDS and normalize_text(words[0]) not in CONTROL_WORDS
    ):
        words, label = words[:1], words[0]  # "Note text" is the note
    if not 1 <= len(words) <= 2 or not all(re.fullmatch(r"[^\W\d_]+(?:['’-][^\W\d_]+)?", w) for w in words):
        return None
    if is_verb_label(label) or any(normalize_text(w) in CONTROL_WORDS for w in words):
        return None
    if locale == "fr":
        return fr_noun(label)
    return "the " + " ".join(words).lower()


def search_object(label: str, locale: str) -> tuple[bool, str | None]:
    """(whether the field is a search field, the noun searched for with its article, when it says one)."""
    words = [w for w in re.split(r"[\s'’]+", label) if w]
    if not words or normalize_text(words[0]) not in SEARCH_VERBS:
        return False, None
    rest = [w for w in words[1:] if normalize_text(w) not in ARTICLES]
    if not rest or len(rest) > 2:
        return True, None
    return True, noun_phrase(" ".join(rest), locale)


_FOLDED_VERBS = frozenset(normalize_text(v) for lang in VERBS.values() for v in lang)


def is_verb_label(label: str) -> bool:
    """A button whose label starts with a verb ('Enregistrer', 'Save note') is named by that label."""
    words = label.split()
    return bool(words) and normalize_text(words[0]) in _FOLDED_VERBS


def names_record(window_before: str | None, window_after: str | None, label: str) -> bool:
    """Whether the new window after a row was opened is that row's record (its name, or the word 'record')."""
    after = normalize_text(window_after or "")
    if not after or after == normalize_text(window_before or ""):
        return False
    return normalize_text(label) in after or any(re.search(rf"\b{w}\b", after) for w in RECORD_WORDS)
