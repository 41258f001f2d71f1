"""The applications `rpa-mcp bench apps` measures (an `AppSpec` each) and what it records of them."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

COMPETENCE = "Admission d'un patient"
SESSION = "bench-admission"
PARAMETERS = {  # expected step (by its index in EXPECTED_STEPS) -> the parameter a person names for it
    0: "nom",
    2: "prenom",
    3: "motif",
    4: "service",
    5: "date_entree",
}
VARIANTS = (  # (query, row, IPP, reason, service, date)
    ("MOREL", "Hélène", "400135", "Chute à domicile", "Gériatrie", "06/12/2026"),
    ("BERNARD", "Louis", "400140", "Dyspnée aiguë", "Pneumologie", "07/12/2026"),
    ("GIRARD", "Noémie", "400152", "Fracture du poignet", "Orthopédie", "08/12/2026"),
    ("FAURE", "Gilles", "400122", "Bilan d'AVC", "Neurologie", "09/12/2026"),
    ("ROUSSEAU", "Étienne", "400167", "Altération de l'état général", "Médecine interne", "10/12/2026"),
    ("LAMBERT", "Sophie", "400173", "Palpitations", "Cardiologie", "11/12/2026"),
    ("PETITBERNARD", "Anne", "400141", "Pneumopathie", "Pneumologie", "12/12/2026"),
    ("FONTAINE", "Marc", "400188", "Syncope", "Cardiologie", "13/12/2026"),
    ("CHEVALIER", "Inès", "400194", "Entorse grave", "Orthopédie", "14/12/2026"),
    ("FAURE", "Céline", "400121", "Douleur thoracique", "Cardiologie", "15/12/2026"),
)
GEOMETRY_CYCLE = ("small", "moved", "maximized", "resized", "wide")


@dataclass(frozen=True)
class AppSpec:
    """One application measured: a variant is (query, row, IPP, *values); `fields` names each of its
    places as a parameter (None: not one), `record` as a field of the saved record (None: not one)."""

    name: str
    title: str
    module: str  # the rig module: missing(), start(desk, path), demonstrate(clerk, app), EXPECTED_STEPS
    competence: str
    session: str
    parameters: dict[int, str]
    variants: tuple[tuple[str, ...], ...]
    fields: tuple[str | None, ...]
    record: tuple[str | None, ...]
    constant: dict[str, Any]  # the saved record's fields every run has the same

    def rig(self) -> ModuleType:
        return importlib.import_module(self.module)

    def values(self, variant: tuple[str, ...]) -> dict[str, str]:
        return {name: value for name, value in zip(self.fields, variant, strict=True) if name}

    def wanted(self, variant: tuple[str, ...]) -> dict[str, Any]:
        return {**{k: v for k, v in zip(self.record, variant, strict=True) if k}, **self.constant}


GTK = AppSpec(
    "gtk",
    "admission desk, native GTK3",
    "rpa_mcp.desktop_rig.admission",
    COMPETENCE,
    SESSION,
    PARAMETERS,
    VARIANTS,
    ("nom", "prenom", None, "motif", "service", "date_entree"),
    (None, None, "patient", "motif", "service", "date"),
    {"isolement": True},
)
TK = AppSpec(
    "tk",
    "pharmacy dispensing desk, Tk, no accessibility tree",
    "rpa_mcp.desktop_rig.dispensation",
    "Dispensation nominative",
    "bench-dispensation",
    {0: "nom", 2: "prenom", 3: "medicament", 4: "quantite", 5: "conditionnement", 6: "date_delivrance"},
    (  # (query, row, IPP, drug, quantity, packaging, date)
        ("LEROY", "Thérèse", "500327", "Amoxicilline 500 mg", "3", "Boîte", "06/12/2026"),
        ("MOREAU", "Kévin", "500334", "Kétoprofène 100 mg", "1", "Ampoule", "07/12/2026"),
        ("SIMON", "Agnès", "500349", "Furosémide 40 mg", "2", "Boîte", "08/12/2026"),
        ("DUBOIS", "Josiane", "500312", "Lévothyroxine 75 mcg", "1", "Boîte", "09/12/2026"),
        ("LAURENT", "Jérôme", "500352", "Héparine 5000 UI", "4", "Flacon", "10/12/2026"),
        ("MICHEL", "Françoise", "500366", "Macrogol 4000", "10", "Sachet", "11/12/2026"),
        ("MOREAUX", "Lucie", "500335", "Lévétiracétam 500 mg", "2", "Boîte", "12/12/2026"),
        ("GARNIER", "Raphaël", "500371", "Salbutamol", "1", "Flacon", "13/12/2026"),
        ("ROUX", "Maëlle", "500388", "Tramadol 50 mg", "20", "Unité", "14/12/2026"),
        ("DUBOIS", "Marcel", "500311", "Bisoprolol 5 mg", "1", "Boîte", "15/12/2026"),
    ),
    ("nom", "prenom", None, "medicament", "quantite", "conditionnement", "date_delivrance"),
    (None, None, "patient", "medicament", "quantite", "conditionnement", "date"),
    {"urgent": True},
)
WEB = AppSpec(
    "web",
    "laboratory order desk, single-page web application with custom-drawn controls, in Chromium",
    "rpa_mcp.desktop_rig.lab_orders",
    "Demande d'examens de biologie",
    "bench-lab-orders",
    {0: "nom", 2: "prenom", 3: "renseignements", 4: "examen", 5: "date_prelevement"},
    (  # (query, row, IPP, clinical information, exam, sampling date)
        ("MARTIN", "Hugo", "700115", "Fièvre post-opératoire", "CRP", "06/12/2026"),
        ("DUPONT", "Marie", "700102", "Contrôle de grossesse", "NFS plaquettes", "07/12/2026"),
        ("LEFEVRE", "Odile", "700123", "Déshydratation", "Ionogramme sanguin", "08/12/2026"),
        ("BONNET", "Yann", "700131", "Ictère", "Bilan hépatique", "09/12/2026"),
        ("MARTINEZ", "Lina", "700116", "Frissons, 39,5 °C", "Hémocultures", "10/12/2026"),
        ("MERCIER", "Chloé", "700138", "Dyspnée aiguë", "Gaz du sang", "11/12/2026"),
        ("BLANC", "Théo", "700144", "Douleur abdominale", "CRP", "12/12/2026"),
        ("GUERIN", "Rose", "700152", "Insuffisance rénale", "Ionogramme sanguin", "13/12/2026"),
        ("ROBIN", "Aurélien", "700160", "Asthénie", "NFS plaquettes", "14/12/2026"),
        ("DUPONT", "Jean", "700101", "Suivi de cirrhose", "Bilan hépatique", "15/12/2026"),
    ),
    ("nom", "prenom", None, "renseignements", "examen", "date_prelevement"),
    (None, None, "patient", "renseignements", "examen", "date"),
    {"a_jeun": True},
)
QT = AppSpec(  # held out: measured once as it was first built, never tuned on
    "qt",
    "imaging appointment desk, native Qt 5, legacy look",
    "rpa_mcp.desktop_rig.imaging",
    "Rendez-vous d'imagerie",
    "bench-imaging",
    {0: "nom", 2: "prenom", 3: "indication", 4: "examen", 5: "date_rdv"},
    (  # (query, row, file number, clinical indication, examination, appointment date)
        ("LEGRAND", "Aurélie", "IM-30411", "Douleur thoracique", "Scanner thoracique", "06/12/2026"),
        ("PERRIN", "Gaëlle", "IM-30425", "Céphalées brutales", "IRM cérébrale", "07/12/2026"),
        ("MASSON", "Zoé", "IM-30446", "Douleur de la fosse iliaque droite", "Échographie abdominale", "08/12/2026"),
        ("NOËL", "Jérémie", "IM-30452", "Chute, douleur de hanche", "Radiographie du bassin", "09/12/2026"),
        ("BRUN", "Clément", "IM-30468", "Œdème du mollet gauche", "Doppler veineux", "10/12/2026"),
        ("ARNAUD", "Cécile", "IM-30471", "Dépistage organisé", "Mammographie", "11/12/2026"),
        ("CARONI", "Pia", "IM-30434", "Toux persistante, fébricule", "Scanner thoracique", "12/12/2026"),
        ("BARBIER", "Léon", "IM-30489", "Troubles de la mémoire", "IRM cérébrale", "13/12/2026"),
        ("LEGRAND", "Benoît", "IM-30412", "Colique néphrétique", "Échographie abdominale", "14/12/2026"),
        ("CARON", "Frédéric", "IM-30433", "Dyspnée d'effort", "Scanner thoracique", "15/12/2026"),
    ),
    ("nom", "prenom", None, "indication", "examen", "date_rdv"),
    (None, None, "patient", "indication", "examen", "date"),
    {"priorite": "Urgent"},
)
SWING = AppSpec(  # held out: measured once as it was first built, never tuned on
    "swing",
    "blood product request desk, Java Swing (Metal), no accessibility tree",
    "rpa_mcp.desktop_rig.transfusion",
    "Demande de produits sanguins",
    "bench-transfusion",
    {0: "nom", 2: "prenom", 3: "indication", 4: "produit", 5: "unites", 6: "date_transfusion"},
    (  # (query, row, IPP, indication, blood product, units, transfusion date)
        ("VIDAL", "Anaïs", "800224", "Hémorragie du post-partum", "Concentré de globules rouges", "3", "06/12/2026"),
        ("CHARPENTIER", "Noël", "800236", "Thrombopénie sévère", "Concentré plaquettaire", "1", "07/12/2026"),
        ("LEMAÎTRE", "Hervé", "800241", "Surdosage en AVK, INR à 9", "Plasma frais congelé", "2", "08/12/2026"),
        ("COLIN", "Sébastien", "800253", "Polytraumatisme", "Plasma lyophilisé", "4", "09/12/2026"),
        (
            "HUMBERT",
            "Françoise",
            "800268",
            "Anémie chronique, Hb 7,2 g/dL",
            "Concentré de globules rouges",
            "2",
            "10/12/2026",
        ),
        ("PICARD", "Joël", "800272", "Hypofibrinogénémie", "Cryoprécipité", "5", "11/12/2026"),
        ("BRETON", "Maïwenn", "800289", "Aplasie post-chimiothérapie", "Concentré plaquettaire", "1", "12/12/2026"),
        ("ROCHE", "Yves", "800212", "Chirurgie cardiaque, saignement", "Plasma frais congelé", "3", "13/12/2026"),
        (
            "LACROIX",
            "Anne-Sophie",
            "800293",
            "Drépanocytose, échange",
            "Concentré de globules rouges",
            "6",
            "14/12/2026",
        ),
        ("ROCHE", "Bérénice", "800211", "Anémie aiguë, Hb 6,8 g/dL", "Concentré de globules rouges", "2", "15/12/2026"),
    ),
    ("nom", "prenom", None, "indication", "produit", "unites", "date_transfusion"),
    (None, None, "patient", "indication", "produit", "unites", "date"),
    {"irradie": True},
)
AWT = AppSpec(  # measured once unseen as it was first built, a tuning desk since
    "awt",
    "bed management desk, Java AWT (XToolkit heavyweight widgets), no accessibility tree",
    "rpa_mcp.desktop_rig.beds",
    "Affectation d'un lit",
    "bench-beds",
    {0: "nom", 2: "prenom", 3: "unite", 4: "lit", 5: "date_entree", 7: "consignes"},
    (  # (query, row, IPP, unit, bed, expected entry date, instructions)
        ("DUMAS", "Hélène", "900352", "Court séjour gériatrique", "108-A", "06/12/2026", "Risque de chute, lit bas"),
        ("GAUTHIER", "Rémi", "900312", "Chirurgie orthopédique", "312-B", "07/12/2026", "À jeun dès minuit"),
        ("LEFÈVRE", "Grégoire", "900334", "Unité de soins continus", "UC-04", "08/12/2026", "Scope, oxygène 2 L/min"),
        ("BOYER", "Maëlys", "900348", "Hépato-gastro-entérologie", "221-A", "09/12/2026", "Régime sans résidu"),
        (
            "RENAUD",
            "Thérèse",
            "900366",
            "Soins de suite et réadaptation",
            "405-A",
            "10/12/2026",
            "Déambulateur, aide à la toilette",
        ),
        ("CLÉMENT", "François", "900392", "Médecine interne A", "217-B", "11/12/2026", "Isolement contact, BMR"),
        ("DUMASSE", "Loïc", "900353", "Chirurgie orthopédique", "314-A", "12/12/2026", "Plâtre, jambe surélevée"),
        (
            "AUBRY",
            "Célestine",
            "900385",
            "Court séjour gériatrique",
            "110-B",
            "13/12/2026",
            "Troubles cognitifs, veille de nuit",
        ),
        ("ROLLAND", "Jérôme", "900371", "Unité de soins continus", "UC-07", "14/12/2026", "Pousse-seringue d'insuline"),
        (
            "GAUTHIER",
            "Édith",
            "900311",
            "Médecine interne A",
            "214-B",
            "15/12/2026",
            "Prévoir matelas à air, régime sans sel",
        ),
    ),
    ("nom", "prenom", None, "unite", "lit", "date_entree", "consignes"),
    (None, None, "patient", "unite", "lit", "date", "consignes"),
    {"chambre_individuelle": True},
)
WX = AppSpec(  # held out: measured once as it was first built, never tuned on
    "wx",
    "outpatient appointment desk, wxPython (wxWidgets on GTK 3), wx-drawn grid and drop-down, no accessibility tree",
    "rpa_mcp.desktop_rig.appointments",
    "Prise de rendez-vous de consultation",
    "bench-appointments",
    {0: "nom", 2: "prenom", 3: "consultation", 4: "date_rdv", 6: "motif"},
    (  # (query, row, IPP, consultation, appointment date, reason)
        ("MARCHAND", "Léa", "800423", "Dermatologie", "06/12/2026", "Eczéma étendu, échec des dermocorticoïdes"),
        ("PERRIN", "Anaïs", "800436", "Endocrinologie", "07/12/2026", "Déséquilibre glycémique, HbA1c à 9 %"),
        ("CHAUVIN", "Noël", "800445", "Neurologie", "08/12/2026", "Tremblement de repos, suivi Parkinson"),
        ("BRUNET", "Cécile", "800452", "Pneumologie", "09/12/2026", "Toux chronique, ancienne fumeuse"),
        ("MARCHAND", "Léo", "800424", "Rhumatologie", "10/12/2026", "Douleurs lombaires après une chute"),
        ("HUMBERT", "Jérémie", "800468", "Gastro-entérologie", "11/12/2026", "Reflux résistant au traitement"),
        ("POIRIER", "Zoé", "800471", "ORL", "12/12/2026", "Otites à répétition, bilan auditif"),
        ("COLAS", "Benoît", "800489", "Cardiologie", "13/12/2026", "Palpitations, Holter à prévoir"),
        ("LEBRUN", "Ophélie", "800493", "Dermatologie", "14/12/2026", "Grain de beauté évolutif"),
        ("BERTIN", "Sébastien", "800412", "Neurologie", "15/12/2026", "Céphalées récurrentes, IRM reçue"),
    ),
    ("nom", "prenom", None, "consultation", "date_rdv", "motif"),
    (None, None, "patient", "consultation", "date", "motif"),
    {"transport": True},
)
APPS = {spec.name: spec for spec in (GTK, TK, WEB, QT, SWING, AWT, WX)}


@dataclass
class Learning:
    expected: int
    proposed: int
    found: int  # expected steps matched by a proposed step of the same kind on the same target
    exact: int  # of the expected steps with a value, those whose value the matched step has exactly
    valued: int
    steps: list[dict[str, Any]] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    parameterized: list[str] = field(default_factory=list)
    matches: dict[int, int] = field(default_factory=dict)  # expected step -> its proposed step (0-based)
    after_removals: tuple[int, int, list[int]] | None = None  # (found, proposed, steps removed) once accepted
    calibration: str = ""  # the confidence figure of the steps as first proposed

    @property
    def declared(self) -> set[str]:
        """The parameters the workflow takes."""
        return {line.split(":")[0] for line in self.parameterized if ": step " in line}


@dataclass
class Run:
    variant: tuple[str, ...]
    geometry: str
    verdict: str  # complete | paused | wrong
    seconds: float
    steps: int
    detail: str = ""
    effects: list[Any] = field(default_factory=list)  # what the application underwent during the run
    bundle_steps: list[dict[str, Any]] = field(default_factory=list)  # the run's evidence bundle's steps
    marks: list[dict[str, Any]] = field(default_factory=list)  # the agent's phase moments of each of its actions
