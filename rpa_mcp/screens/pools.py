"""Variable content of the screens (patients, sites, files, programs), split by set.

Every pool is cut in two disjoint halves: the tuning set (and the committed canonical corpus)
draws from the even positions, the evaluation set from the odd ones. A rule that keys on a
particular file name, host name or patient therefore cannot score on the evaluation set.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from rpa_mcp.screens.look import Split

T = TypeVar("T")

PATIENTS = (
    ("DURAND", "Alice", "14/02/1956", "000123456"),
    ("MOREAU", "Jean", "03/07/1948", "000458812"),
    ("LEFEBVRE", "Claire", "21/11/1972", "000772310"),
    ("BERNARD", "Louis", "09/05/1939", "000190274"),
    ("PETIT", "Sophie", "30/01/1985", "000634501"),
    ("ROUX", "Marcel", "17/09/1951", "000881243"),
    ("FOURNIER", "Inès", "02/12/1966", "000347719"),
    ("GIRARD", "Paul", "25/04/1944", "000516038"),
)
HOSTS = (
    "easily.ch-valmont.fr",
    "dpi.chu-lorient.local",
    "easily.hopital-nord.fr",
    "dossier.ght-alpes.fr",
    "easily-prod.chv.local",
    "dpi.clinique-saint-roch.fr",
)
DOCUMENTS = (
    "CR_consultation_12-03.pdf",
    "Ordonnance_2025-03-11.pdf",
    "CR_operatoire_0310.docx",
    "Courrier_Dr_MARTIN.pdf",
    "Bilan_bio_2025-03.pdf",
    "Lettre_sortie_0307.docx",
)
FILES = (
    "CR_2024-03-12.docx",
    "planning_garde_mars.xlsx",
    "protocole_insuline.pdf",
    "export_labo_0312.csv",
    "notes_transmission.txt",
    "liste_patients_UF1204.xlsx",
)
PROGRAMS = (
    ("Registry Editor", "Éditeur du Registre", "regedit.exe"),
    ("LabConnect Setup", "Installation de LabConnect", "labconnect_setup.exe"),
    ("Command Processor", "Processeur de commandes", "cmd.exe"),
    ("PACS Viewer Updater", "Mise à jour PACS Viewer", "pacsupd.exe"),
    ("Windows PowerShell", "Windows PowerShell", "powershell.exe"),
    ("Print Driver Installer", "Installation du pilote d'impression", "drvinst.exe"),
)
SERVERS = ("srv-fichiers01", "nas-radiologie", "srv-labo02", "fs-admin.chv.local", "srv-pharma", "nas-archives")
USERS = ("cmartin", "jleroy", "pbernard", "aroux", "mdupont", "slefevre")
DOCTORS = ("Dr Claire MARTIN", "Dr Paul BERNARD", "Dr Anne ROUX", "Dr Hugo LEROY", "Dr Léa FAURE", "Dr Marc DUPONT")
TABS = ("Dossier patient", "Imagerie", "Biologie", "Prescriptions", "Courriers", "Constantes", "Observations")
DRUGS = (
    ("amoxicilline", "pénicilline", "amoxicillin", "penicillin"),
    ("ibuprofène", "AINS", "ibuprofen", "NSAIDs"),
    ("céfazoline", "céphalosporines", "cefazolin", "cephalosporins"),
    ("morphine", "opiacés", "morphine", "opioids"),
    ("héparine", "héparines", "heparin", "heparins"),
    ("codéine", "opiacés", "codeine", "opioids"),
)
FIELDS = (
    ("Motif", "Reason"),
    ("Date de l'examen", "Exam date"),
    ("Médecin prescripteur", "Prescribing doctor"),
    ("Service", "Ward"),
    ("Posologie", "Dosage"),
    ("Voie d'administration", "Route"),
)


def half(pool: Sequence[T], split: Split) -> Sequence[T]:
    """The part of a pool a split may use (even positions: tuning/canonical, odd: evaluation)."""
    return pool[1::2] if split == "evaluation" else pool[0::2]


def pick(rng: random.Random, pool: Sequence[T], split: Split) -> T:
    part = half(pool, split)
    return part[0] if split == "canonical" else rng.choice(part)
