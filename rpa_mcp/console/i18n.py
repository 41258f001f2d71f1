"""The console in English and French: English text is the key, `FR` its translation.

`translator(lang)` returns `_(text, **values)`; a text without a translation shows in
English (a test checks that every text of the templates has its French one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

LANGUAGES = ("en", "fr")

FR: dict[str, str] = {
    # --- frame
    "Operator console": "Console de supervision",
    "Machines": "Postes",
    "Competences": "Compétences",
    "Replays": "Rejeux",
    "Approvals": "Validations",
    "Audit": "Audit",
    "Dialog catalog": "Dialogues",
    "Signed in as": "Connecté en tant que",
    "Sign out": "Se déconnecter",
    "Sign in": "Se connecter",
    "Language": "Langue",
    "Live": "En direct",
    "updates appear without reloading": "les mises à jour s'affichent sans recharger",
    # --- sign-in
    "Sign in to the console": "Connexion à la console",
    "Sign in with {provider}": "Se connecter avec {provider}",
    "Your hospital account": "Votre compte de l'hôpital",
    "Sign in with a console credential (development)": "Se connecter avec un identifiant de console (développement)",
    "Paste your own console credential (minted for you as an operator, approver or viewer). An access token for /mcp "
    "or /api/v1, such as the assistant's, is refused here.": "Collez votre propre identifiant de console (délivré à "
    "votre nom comme opérateur, valideur ou lecteur). Un jeton d'accès pour /mcp ou /api/v1, comme celui de "
    "l'assistant, est refusé ici.",
    "To get a console credential, ask an administrator of this server to run: rpa-mcp token --console --sub "
    "YOUR-NAME --role approver": "Pour obtenir un identifiant de console, demandez à un administrateur de ce serveur "
    "de lancer : rpa-mcp token --console --sub VOTRE-NOM --role approver",
    "Or sign in with your hospital account above.": "Ou connectez-vous avec votre compte de l'hôpital ci-dessus.",
    "An administrator can also set up single sign-on with the hospital's accounts (RPA_OIDC_ISSUER, see "
    "docs/console.md); a button for it then appears here.": "Un administrateur peut aussi mettre en place la "
    "connexion unique avec les comptes de l'hôpital (RPA_OIDC_ISSUER, voir docs/console.md) ; un bouton apparaît "
    "alors ici.",
    "Console credential": "Identifiant de console",
    "You need to sign in to see this page.": "Vous devez vous connecter pour voir cette page.",
    "Please sign in": "Veuillez vous connecter",
    # --- refusals
    "Bad request": "Requête invalide",
    "Not allowed": "Non autorisé",
    "Not found": "Introuvable",
    "Conflict": "Conflit",
    "Refused": "Refusé",
    "Too many requests": "Trop de requêtes",
    "Back to the console": "Retour à la console",
    "This form must be sent from this server's own page.": "Ce formulaire doit être envoyé depuis une page de ce "
    "serveur.",
    "The form is missing its security token or it does not match; reload the page.": "Le jeton de sécurité du "
    "formulaire manque ou ne correspond pas ; rechargez la page.",
    "That console credential was not accepted (unknown, expired or malformed).": "Cet identifiant de console n'a pas "
    "été accepté (inconnu, expiré ou mal formé).",
    "That is an access token for /mcp and /api/v1 (held by an assistant or a program), not a console credential: "
    "it never signs in here. Ask an administrator for your own: rpa-mcp token --console --sub YOUR-NAME --role "
    "approver": "Ceci est un jeton d'accès pour /mcp et /api/v1 (détenu par un assistant ou un programme), pas un "
    "identifiant de console : il ne permet jamais de se connecter ici. Demandez le vôtre à un administrateur : "
    "rpa-mcp token --console --sub VOTRE-NOM --role approver",
    "Sign-in with a console credential is not enabled on this server.": "La connexion avec un identifiant de console "
    "n'est pas activée sur ce serveur.",
    "The sign-in form expired or was not sent from this page; open it again.": "Le formulaire de connexion a expiré "
    "ou n'a pas été envoyé depuis cette page ; rouvrez-le.",
    "The console needs the role operator, approver or viewer; this identity has none of them.": "La console demande "
    "le rôle opérateur, valideur ou lecteur ; cette identité n'en a aucun.",
    "The sign-in at the identity provider did not complete; try again.": "La connexion auprès du fournisseur "
    "d'identité n'a pas abouti ; réessayez.",
    "No such request (it may have been removed).": "Demande introuvable (elle a peut-être été supprimée).",
    "You proposed this request, so you cannot approve or reject it yourself.": "Vous avez proposé cette demande : "
    "vous ne pouvez pas la valider ni la refuser vous-même.",
    # --- machines and sessions
    "Machine": "Poste",
    "Last seen": "Vu pour la dernière fois",
    "First seen": "Vu pour la première fois",
    "Active session": "Session active",
    "Sessions": "Sessions",
    "Session": "Session",
    "No machine has sent events yet.": "Aucun poste n'a encore envoyé d'événement.",
    "Started": "Début",
    "Last event": "Dernier événement",
    "Events": "Événements",
    "Finished": "Terminée",
    "yes": "oui",
    "no": "non",
    "ago": "il y a",
    "Observation": "Observation",
    "observing": "en observation",
    "stopped": "arrêtée",
    "Steps": "Étapes",
    "Step in progress": "Étape en cours",
    "Intent": "Intention",
    "Action": "Action",
    "Value": "Valeur",
    "Confidence": "Confiance",
    "Suggestions": "Suggestions",
    "Status": "État",
    "No step yet.": "Aucune étape pour l'instant.",
    "What happened": "Ce qui s'est passé",
    # --- competences
    "Name": "Nom",
    "Version": "Version",
    "Versions": "Versions",
    "current": "actuelle",
    "candidate": "candidate",
    "validated": "validée",
    "Machine observed on": "Poste observé",
    "Updated": "Mise à jour",
    "No competence yet.": "Aucune compétence pour l'instant.",
    "Compare with": "Comparer avec",
    "Compare": "Comparer",
    "Difference between version {a} and version {b}": "Différences entre la version {a} et la version {b}",
    "added": "ajoutée",
    "removed": "supprimée",
    "changed": "modifiée",
    "unchanged": "inchangée",
    "No difference in the steps.": "Aucune différence dans les étapes.",
    "Propose promotion": "Proposer la validation",
    "Propose deletion": "Proposer la suppression",
    "Promote to validated": "Passer en validée",
    "Move to the trash": "Mettre à la corbeille",
    "Target": "Cible",
    "Recorded target": "Cible enregistrée",
    "Parameters": "Paramètres",
    "Expected outcome": "Résultat attendu",
    "none: not checkable": "aucun : non vérifiable",
    "identity read before the click": "identité lue avant le clic",
    "message": "message",
    "heading": "titre de page",
    "dialog": "fenêtre de l'application",
    "window_title": "titre de fenêtre",
    "field_value": "valeur du champ",
    "row": "ligne",
    "Window before": "Fenêtre avant",
    "Window after": "Fenêtre après",
    "Files that could not be read": "Fichiers illisibles",
    "The proposal is waiting for another person's approval.": "La proposition attend la validation d'une autre "
    "personne.",
    "Done.": "Fait.",
    # --- replays
    "Replay": "Rejeu",
    "Competence": "Compétence",
    "State": "État",
    "Progress": "Avancement",
    "Created": "Créé",
    "No replay yet.": "Aucun rejeu pour l'instant.",
    "Timeline": "Chronologie",
    "running": "en cours",
    "paused": "en pause",
    "completed": "terminé",
    "failed": "échoué",
    "cancelled": "annulé",
    "Where it was clicked": "Où le clic a eu lieu",
    "Checkers": "Vérifications",
    "Verdict": "Verdict",
    "Why it is paused": "Pourquoi il est en pause",
    "Answer": "Répondre",
    "Retry": "Réessayer",
    "Skip": "Passer",
    "Abort": "Abandonner",
    "Resume": "Reprendre",
    "Pause": "Mettre en pause",
    "Cancel the replay": "Annuler le rejeu",
    "Click \u201c{label}\u201d": "Cliquer sur « {label} »",
    "Your answer is the approval: it is recorded in the audit log under your name.": "Votre réponse vaut "
    "validation : elle est enregistrée à votre nom dans le journal d'audit.",
    "dispatches": "envois",
    "Error": "Erreur",
    "A person used the mouse or keyboard while this step ran: what the screen shows may be their doing.": (
        "Une personne a utilisé la souris ou le clavier pendant cette étape : ce que montre l'écran peut venir d'elle."
    ),
    "Warning": "Avertissement",
    "waiting": "en attente",
    "Started by": "Lancé par",
    "Paused at step {step}": "En pause à l'étape {step}",
    # --- pause reasons (plain words)
    "PAUSED_NEED_HELP": "L'action a échoué ou est restée sans réponse trop de fois. Regardez l'écran puis "
    "répondez : réessayer, passer ou abandonner.",
    "OUTCOME_UNKNOWN": "L'agent a commencé l'action mais n'a jamais dit comment elle s'est terminée : elle a pu "
    "avoir lieu ou non. Vérifiez l'écran, puis répondez passer (elle a eu lieu), réessayer (elle n'a pas eu lieu) "
    "ou abandonner.",
    "HUMAN_TAKEOVER": "Quelqu'un a utilisé la souris ou le clavier pendant le rejeu. Quand cette personne a fini, "
    "reprenez : l'écran est d'abord comparé à l'action suivante.",
    "SYSTEM_DIALOG": "Une fenêtre système Windows (UAC, Windows Hello, SmartScreen, identifiants) est ouverte. "
    "Elle n'est jamais traitée automatiquement : une personne doit s'en occuper, puis reprendre (ou répondre "
    "réessayer, passer, abandonner).",
    "UNEXPECTED_DIALOG": "Une boîte de dialogue que le workflow ne prévoyait pas est apparue. Cliquez sur l'un de "
    "ses boutons, passez (la laisser) ou abandonnez.",
    "VALIDATION_FAILED": "L'écran après l'action ne montre pas l'effet attendu (voir le verdict et l'extrait). "
    "Corrigez l'écran si besoin, puis répondez réessayer, passer ou abandonner.",
    "UNVERIFIED": "L'effet de l'action n'a pas pu être vérifié. Vérifiez l'écran, puis répondez passer (tout va "
    "bien), réessayer ou abandonner.",
    "USER_PAUSE": "Mis en pause à la demande. Reprenez pour continuer.",
    "SERVER_ACTION_FAILED": "Une étape côté serveur (lecture de texte, décision) a échoué ; elle n'est jamais "
    "réessayée automatiquement. Répondez réessayer, passer ou abandonner.",
    "WORKSTATION_NOT_READY": "Rien n'a été exécuté : l'écran du poste ne montre pas ce que la première étape "
    "demande (voir ce qui manque). Mettez la fenêtre de l'application au premier plan (déverrouillez la session si "
    "elle l'est), puis répondez réessayer (l'écran est observé à nouveau) ou abandonner.",
    "The workstation is not ready": "Le poste n'est pas prêt",
    # --- approvals
    "Pending approvals": "Validations en attente",
    "Nothing is waiting for approval.": "Rien n'attend de validation.",
    "Operation": "Opération",
    "What will happen": "Ce qui va se passer",
    "Proposed by": "Proposé par",
    "Proposed at": "Proposé le",
    "Expires": "Expire",
    "you": "vous",
    "Request": "Demande",
    "Risk": "Risque",
    "Decided by": "Décidé par",
    "Details": "Détails",
    "What changes": "Ce qui change",
    "What the replay will do": "Ce que le rejeu va faire",
    "Approve": "Valider",
    "Apply": "Appliquer",
    "Reject": "Refuser",
    "This request is {status}.": "Cette demande est : {status}.",
    "pending": "en attente",
    "approved": "validée",
    "rejected": "refusée",
    "not_required": "non requise",
    "This request expired; it must be proposed again.": "Cette demande a expiré ; elle doit être proposée à nouveau.",
    "You proposed this request, so you cannot approve it: another person with the approver or operator role must "
    "decide.": "Vous avez proposé cette demande, vous ne pouvez donc pas la valider : une autre personne ayant le "
    "rôle valideur ou opérateur doit décider.",
    "Steps that will be removed": "Étapes qui seront supprimées",
    "Steps of the workflow": "Étapes du workflow",
    "All pending approvals": "Toutes les validations en attente",
    # --- audit
    "Who": "Qui",
    "What": "Quoi",
    "When": "Quand",
    "From": "Du",
    "To": "Au",
    "Via": "Via",
    "Outcome": "Résultat",
    "Code": "Code",
    "Duration": "Durée",
    "Filter": "Filtrer",
    "Verify the chain": "Vérifier la chaîne",
    "The audit chain is intact ({rows} rows).": "La chaîne d'audit est intacte ({rows} lignes).",
    "The audit chain is BROKEN at row {row}: {reason}.": "La chaîne d'audit est ROMPUE à la ligne {row} : {reason}.",
    "No audit row matches.": "Aucune ligne ne correspond.",
    # --- dialogs
    "Category": "Catégorie",
    "Policy": "Politique",
    "Buttons": "Boutons",
    "Titles": "Titres",
    "Tags": "Étiquettes",
    "A workflow may override": "Un workflow peut la modifier",
    "auto": "automatique",
    "pause": "pause",
    "skip": "ignorer",
    "Application": "Application",
    # --- outcomes, step classes, evidence
    "Steps verified": "Étapes vérifiées",
    "Evidence bundle": "Dossier de preuves",
    "Read-back": "Relecture du dossier",
    "Irreversible steps": "Étapes irréversibles",
    "Irreversible steps sent": "Étapes irréversibles envoyées",
    "outcome seen": "résultat constaté",
    "outcome not known: check the record": "résultat inconnu : vérifier le dossier",
    "irreversible": "irréversible",
    "uncheckable": "invérifiable",
    "Steps whose outcome cannot be checked": "Étapes dont le résultat ne peut être vérifié",
    "These steps save, validate, sign, send, delete or dispense: a run stopped after one of them needs a person "
    "to check the record.": "Ces étapes enregistrent, valident, signent, envoient, suppriment ou dispensent : une "
    "exécution arrêtée après l'une d'elles demande qu'une personne vérifie le dossier.",
    "Declared uncheckable by a person: a run that goes through ends completed_unverified, not completed.": "Déclarées "
    "invérifiables par une personne : une exécution qui va jusqu'au bout finit completed_unverified, pas completed.",
    # --- codes in words (rpa_mcp/console/words.py)
    "Start a replay": "Lancer un rejeu",
    "Resume a replay": "Reprendre un rejeu",
    "Answer a paused replay": "Répondre à un rejeu en pause",
    "Save a new competence version": "Enregistrer une nouvelle version de compétence",
    "Promote a competence to validated": "Passer une compétence en validée",
    "Delete a competence version": "Supprimer une version de compétence",
    "reads only": "lecture seule",
    "prepares, changes nothing": "prépare, ne change rien",
    "changes the stored competences": "modifie les compétences enregistrées",
    "acts on a workstation": "agit sur un poste de travail",
    "deletes or cannot be undone": "supprime ou ne peut être annulé",
    "as expected": "conforme",
    "not as expected": "non conforme",
    "not sure": "incertain",
    "not checked": "non vérifié",
    "Needs help": "Besoin d'aide",
    "Outcome unknown": "Résultat inconnu",
    "Someone used the workstation": "Quelqu'un a utilisé le poste",
    "A system window is open": "Une fenêtre système est ouverte",
    "An unexpected dialog appeared": "Une boîte de dialogue inattendue est apparue",
    "The screen does not show the expected result": "L'écran ne montre pas le résultat attendu",
    "The result could not be checked": "Le résultat n'a pas pu être vérifié",
    "Paused on request": "Mis en pause à la demande",
    "A server-side step failed": "Une étape côté serveur a échoué",
    "the wrong application is in front": "la mauvaise application est au premier plan",
    "the click landed on the wrong element": "le clic est tombé sur le mauvais élément",
    "nothing changed on the screen": "rien n'a changé à l'écran",
    "an unexpected dialog appeared": "une boîte de dialogue inattendue est apparue",
    "the dialog is still open": "la boîte de dialogue est toujours ouverte",
    "the target was not found": "la cible n'a pas été trouvée",
    "the text read is not the one expected": "le texte lu n'est pas celui attendu",
    "the value read has the wrong form": "la valeur lue n'a pas la forme attendue",
    "no answer in time": "pas de réponse à temps",
    "an unexpected message, or the expected one missing": "un message inattendu, ou le message attendu absent",
    "the record is not the one chosen": "le dossier n'est pas celui choisi",
    "more than one record reads as the one chosen: a person chooses": (
        "plus d'un dossier se lit comme celui choisi : une personne choisit"
    ),
    "another window covers what is to be clicked": "une autre fenêtre couvre ce qui doit être cliqué",
    "Screen changed": "L'écran a changé",
    "Region looks different": "La zone a changé d'aspect",
    "Text read in the region": "Texte lu dans la zone",
    "Window title": "Titre de la fenêtre",
    "Save confirmed": "Enregistrement confirmé",
    "Tab selected": "Onglet sélectionné",
    "Tab closed": "Onglet fermé",
    "Expected result shown": "Résultat attendu affiché",
    "No error message": "Aucun message d'erreur",
    "Value has the expected form": "La valeur a la forme attendue",
    "Model's judgement": "Avis du modèle",
    "Dialog on screen": "Boîte de dialogue à l'écran",
    "Dialog closed": "Boîte de dialogue fermée",
    "completed, some steps not checkable": "terminé, certaines étapes invérifiables",
    "stopped before any irreversible step": "arrêté avant toute étape irréversible",
    "check the record": "vérifier le dossier",
    "completed and read back": "terminé et relu",
    "sent": "envoyée",
    "done": "faite",
    "held for a person": "en attente d'une personne",
    "no answer from the workstation": "pas de réponse du poste",
    "abandoned": "abandonnée",
    # --- outcome meanings (rpa_mcp/replay/outcomes.py MEANING)
    "The replay is running.": "Le rejeu est en cours.",
    "The replay is paused: it waits for a person.": "Le rejeu est en pause : il attend une personne.",
    "The replay was cancelled; an action still in flight will say how it ended.": "Le rejeu a été annulé ; une "
    "action encore en cours dira comment elle s'est terminée.",
    "Every step was done and its outcome seen.": "Chaque étape a été faite et son résultat constaté.",
    "Every step was done; the steps declared uncheckable at approval could not be checked.": "Chaque étape a été "
    "faite ; les étapes déclarées invérifiables à la validation n'ont pas pu être vérifiées.",
    "Stopped before anything irreversible was sent: it is safe to run it again.": "Arrêté avant tout envoi "
    "irréversible : il peut être relancé sans risque.",
    "Stopped after an irreversible step was sent: a person must check the record (the steps are named) before "
    "anything is run again.": "Arrêté après l'envoi d'une étape irréversible : une personne doit vérifier le "
    "dossier (les étapes sont nommées) avant toute nouvelle exécution.",
    "Every step was done, its outcome seen, and the record read back.": "Chaque étape a été faite, son résultat "
    "constaté et le dossier relu.",
    # --- approval details (keys)
    "New version": "Nouvelle version",
    "Replaces version": "Remplace la version",
    "why": "pourquoi",
    "checked": "vérifié",
    "Typed": "Saisi",
    "File": "Fichier",
    "Files": "Fichiers",
    "Candidate version": "Version candidate",
    "Validated version": "Version validée",
    "Short name": "Nom court",
    "Parameters given": "Paramètres donnés",
    "Next action": "Action suivante",
    "Steps validated by a person": "Étapes validées par une personne",
    "Restores version": "Restaure la version",
    "Changes the assistant's tools": "Modifie les outils de l'assistant",
    "Workstation check": "Vérification du poste",
    "First steps": "Premières étapes",
    "Propose a replay": "Proposer un rejeu",
    "The replay starts once another person has approved it (or at once where this server's approval mode "
    "allows).": "Le rejeu démarre une fois validé par une autre personne (ou aussitôt si le mode de validation de "
    "ce serveur le permet).",
    # --- supervisor's words
    "dialog handled as designed": "boîte de dialogue traitée comme prévu",
    "dialog answer": "réponse à une boîte de dialogue",
    "added by a person": "ajoutée par une personne",
    "1 dispatch": "1 envoi",
    "{n} dispatches": "{n} envois",
    "{n} small ignored changes are listed in the evidence bundle": "{n} petits changements ignorés sont listés "
    "dans le dossier de preuves",
    "not applicable": "sans objet",
    "operator": "opérateur",
    "approver": "valideur",
    "viewer": "lecteur",
    "Waiting for me": "Ce qui m'attend",
    "Home": "Accueil",
    "Paused replays": "Rejeux en pause",
    "No replay is paused.": "Aucun rejeu n'est en pause.",
    "Expires in": "Expire dans",
    "expired": "expirée",
    "Approvals lapse {minutes} min after they are proposed (RPA_MCP_CONFIRMATION_TTL).": "Les validations expirent "
    "{minutes} min après leur proposition (RPA_MCP_CONFIRMATION_TTL).",
    "This console address does not exist.": "Cette adresse de la console n'existe pas.",
    "Newest": "Les plus récentes",
    "Older": "Plus anciennes",
    "Rows {first} to {last}": "Lignes {first} à {last}",
    "Page views": "Consultations de pages",
    "Times are shown in your browser's time zone.": "Les heures sont affichées dans le fuseau horaire de votre "
    "navigateur.",
    "Saved as competence": "Enregistrée comme compétence",
    "{n} views from {first} to {last} (UTC)": "{n} consultations de {first} à {last} (UTC)",
    "Page views are counted per person, page and hour: one row each.": "Les consultations de pages sont "
    "comptées par personne, page et heure : une ligne chacune.",
    "New approval waiting": "Nouvelle validation en attente",
    "Notify me on this computer": "M'avertir sur cet ordinateur",
    "Nothing to see at the point itself: shown with its surroundings.": "Rien de lisible à l'endroit même : "
    "montré avec ses alentours.",
    "Nothing to see in the region itself: shown with its surroundings.": "Rien de lisible dans la zone même : "
    "montrée avec ses alentours.",
}


def translator(lang: str) -> Callable[..., str]:
    table = FR if lang == "fr" else {}

    def _(text: Any, **values: Any) -> str:
        key = str(text)
        out = table.get(key, key)
        return out.format(**values) if values else out

    return _
