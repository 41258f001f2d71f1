/*
 * A Java Swing application for measuring learning and replay on software nobody tuned to, by vision alone.
 *
 * The blood bank's request desk of a hospital, in French, in the look of a Java desktop application of
 * the early 2000s (Metal with its original "Steel" theme: bold Dialog font, blue-grey bevels, Java's own
 * text rendering): a patient search (text field + button) whose results fill a JTable, and a request
 * form (GridBagLayout: each field named by a label beside it) with an indication, a blood product
 * drop-down (JComboBox), a number of units, a transfusion date typed in a text field, an "irradiated
 * product" check box and "Envoyer la demande", which checks the form and answers on the status line.
 * Opening a patient titles the window "Transfusion — Demande — NOM Prénom".
 *
 * Java's accessibility bridge to AT-SPI is never loaded (javax.accessibility.assistive_technologies is
 * set empty): what a platform learns of it, it learns from the screen. It runs as a single source file
 * under OpenJDK 17 (no build step), never loaded by the server:
 *
 *     java -Dfile.encoding=UTF-8 SwingTransfusion.java --effects effects.jsonl --layout layout.json
 *
 * Every effect it undergoes is one JSON line in --effects (seq, at, kind, detail), as effects_log.py
 * writes them: search (q, hits), open (patient), save (every field's value), error (missing fields).
 * --layout is kept up to date with where the widgets are on the screen (the scripted person's eyes
 * only: a person sees where things are; the platform never reads it). Java's standard library only.
 */

import java.awt.BorderLayout;
import java.awt.Component;
import java.awt.Dimension;
import java.awt.FlowLayout;
import java.awt.GridBagConstraints;
import java.awt.GridBagLayout;
import java.awt.Insets;
import java.awt.Rectangle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.swing.BorderFactory;
import javax.swing.JButton;
import javax.swing.JCheckBox;
import javax.swing.JComboBox;
import javax.swing.JFrame;
import javax.swing.JLabel;
import javax.swing.JList;
import javax.swing.JMenu;
import javax.swing.JMenuBar;
import javax.swing.JMenuItem;
import javax.swing.JPanel;
import javax.swing.JScrollPane;
import javax.swing.JTable;
import javax.swing.JTextField;
import javax.swing.ListSelectionModel;
import javax.swing.SwingUtilities;
import javax.swing.Timer;
import javax.swing.UIManager;
import javax.swing.plaf.basic.ComboPopup;
import javax.swing.plaf.metal.DefaultMetalTheme;
import javax.swing.plaf.metal.MetalLookAndFeel;
import javax.swing.table.DefaultTableModel;

public class SwingTransfusion {
    static final String TITLE = "Transfusion — Demande de produits sanguins";
    static final String NONE_CHOSEN = "— choisir —";
    static final String[] PRODUCTS = {
        "Concentré de globules rouges",
        "Plasma frais congelé",
        "Concentré plaquettaire",
        "Plasma lyophilisé",
        "Cryoprécipité",
    };
    static final String[][] PATIENTS = {  // IPP, NOM, Prénom, date of birth, blood group
        {"800211", "ROCHE", "Bérénice", "12/03/1958", "A+"},
        {"800212", "ROCHE", "Yves", "02/10/1955", "O+"},
        {"800224", "VIDAL", "Anaïs", "27/06/1990", "B-"},
        {"800236", "CHARPENTIER", "Noël", "14/01/1941", "O-"},
        {"800241", "LEMAÎTRE", "Hervé", "08/08/1967", "AB+"},
        {"800253", "COLIN", "Sébastien", "30/04/1979", "A-"},
        {"800254", "COLINET", "Ginette", "19/09/1936", "A+"},
        {"800268", "HUMBERT", "Françoise", "05/05/1949", "O+"},
        {"800272", "PICARD", "Joël", "23/11/1984", "B+"},
        {"800289", "BRETON", "Maïwenn", "11/02/2002", "O+"},
        {"800293", "LACROIX", "Anne-Sophie", "16/07/1973", "A+"},
    };
    static final DateTimeFormatter DATE =
        DateTimeFormatter.ofPattern("dd/MM/uuuu").withResolverStyle(ResolverStyle.STRICT);

    final Path effectsPath;
    final Path layoutPath;
    int seq;
    String lastLayout = "";
    String[] patient;

    final JFrame frame = new JFrame(TITLE);
    final JTextField query = new JTextField(16);
    final JButton find = new JButton("Rechercher");
    final DefaultTableModel rows = new DefaultTableModel(new String[] {"IPP", "Nom", "Prénom", "Né(e) le", "Groupe"}, 0) {
        @Override
        public boolean isCellEditable(int row, int column) {
            return false;
        }
    };
    final JTable table = new JTable(rows);
    final JLabel count = new JLabel("Saisissez un nom puis « Rechercher ».");
    final JLabel who = new JLabel("Aucun patient sélectionné");
    final JTextField indication = new JTextField(22);
    final JComboBox<String> product = new JComboBox<>();
    final JTextField units = new JTextField(4);
    final JTextField date = new JTextField(10);
    final JCheckBox irradiated = new JCheckBox("Produit irradié");
    final JTextField prescriber = new JTextField(16);
    final JButton send = new JButton("Envoyer la demande");
    final JLabel status = new JLabel("Prêt.");
    final JPanel form = new JPanel(new BorderLayout());
    JMenu help;
    boolean filling;

    SwingTransfusion(Path effects, Path layout) throws IOException {
        effectsPath = effects;
        layoutPath = layout;
        if (effects != null && Files.exists(effects)) {
            seq = Files.readAllLines(effects, StandardCharsets.UTF_8).size();
        }
        frame.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
        frame.setJMenuBar(menus());
        JPanel body = new JPanel(new BorderLayout(8, 8));
        body.setBorder(BorderFactory.createEmptyBorder(6, 6, 6, 6));
        body.add(searchSide(), BorderLayout.CENTER);
        body.add(formSide(), BorderLayout.EAST);
        frame.getContentPane().add(body, BorderLayout.CENTER);
        status.setBorder(BorderFactory.createCompoundBorder(
            BorderFactory.createLoweredBevelBorder(), BorderFactory.createEmptyBorder(2, 4, 2, 4)));
        frame.getContentPane().add(status, BorderLayout.SOUTH);
        frame.setSize(1000, 660);
        new Timer(200, e -> writeLayout()).start();
    }

    JMenuBar menus() {
        JMenuBar bar = new JMenuBar();
        for (String name : new String[] {"Fichier", "Édition", "Demande", "Hémovigilance", "Aide"}) {
            JMenu menu = new JMenu(name);
            bar.add(menu);
            if (name.equals("Aide")) {
                help = menu;
                menu.add(new JMenuItem("Procédure transfusionnelle"));
                menu.add(new JMenuItem("Compatibilités ABO"));
                menu.add(new JMenuItem("À propos"));
            } else {
                menu.add(new JMenuItem("(vide)"));
            }
        }
        return bar;
    }

    // --- the search and its results -----------------------------------------------------------------
    JPanel searchSide() {
        JPanel side = new JPanel(new BorderLayout(4, 6));
        side.setBorder(BorderFactory.createTitledBorder("Recherche patient"));
        JPanel line = new JPanel(new FlowLayout(FlowLayout.LEFT, 6, 2));
        JLabel label = new JLabel("Nom du patient :");
        label.setLabelFor(query);
        line.add(label);
        line.add(query);
        line.add(find);
        query.addActionListener(e -> onSearch());
        find.addActionListener(e -> onSearch());
        side.add(line, BorderLayout.NORTH);
        table.setSelectionMode(ListSelectionModel.SINGLE_SELECTION);
        table.setFillsViewportHeight(true);
        table.setRowHeight(20);
        table.getSelectionModel().addListSelectionListener(e -> {
            if (!e.getValueIsAdjusting() && !filling) {
                onPick();
            }
        });
        side.add(new JScrollPane(table), BorderLayout.CENTER);
        side.add(count, BorderLayout.SOUTH);
        return side;
    }

    void onSearch() {
        String q = query.getText().strip();
        List<String> hits = new ArrayList<>();
        filling = true;
        table.clearSelection();
        rows.setRowCount(0);
        for (String[] p : PATIENTS) {
            if (!q.isEmpty() && (p[1].contains(q.toUpperCase(Locale.FRANCE)) || p[0].equals(q))) {
                rows.addRow(p);
                hits.add(p[0]);
            }
        }
        filling = false;
        count.setText(hits.size() + " patient(s) trouvé(s) pour « " + q + " ».");
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("q", q);
        detail.put("hits", hits);
        effect("search", detail);
    }

    void onPick() {
        int row = table.getSelectedRow();
        if (row < 0) {
            return;
        }
        String number = (String) rows.getValueAt(row, 0);
        for (String[] p : PATIENTS) {
            if (p[0].equals(number) && p != patient) {
                patient = p;
                frame.setTitle("Transfusion — Demande — " + p[1] + " " + p[2]);
                who.setText(p[1] + " " + p[2] + " — IPP " + p[0] + " — groupe " + p[4]);
                status.setText("Dossier " + p[0] + " ouvert.");
                Map<String, Object> detail = new LinkedHashMap<>();
                detail.put("patient", number);
                effect("open", detail);
            }
        }
    }

    // --- the request form ----------------------------------------------------------------------------
    JPanel formSide() {
        form.setBorder(BorderFactory.createTitledBorder("Demande transfusionnelle"));
        JPanel grid = new JPanel(new GridBagLayout());
        GridBagConstraints at = new GridBagConstraints();
        at.insets = new Insets(4, 4, 4, 4);
        at.anchor = GridBagConstraints.WEST;
        at.gridx = 0;
        at.gridy = 0;
        at.gridwidth = 2;
        grid.add(who, at);
        at.gridwidth = 1;
        product.addItem(NONE_CHOSEN);
        for (String name : PRODUCTS) {
            product.addItem(name);
        }
        product.setMaximumRowCount(PRODUCTS.length + 1);  // the whole list open, no scroll bar
        JPanel dateLine = new JPanel(new FlowLayout(FlowLayout.LEFT, 4, 0));
        dateLine.add(date);
        dateLine.add(new JLabel("(jj/mm/aaaa)"));
        row(grid, at, 1, "Indication :", indication);
        row(grid, at, 2, "Produit :", product);
        row(grid, at, 3, "Nombre d'unités :", units);
        row(grid, at, 4, "Date de transfusion :", dateLine);
        at.gridx = 1;
        at.gridy = 5;
        grid.add(irradiated, at);
        row(grid, at, 6, "Médecin prescripteur :", prescriber);
        at.gridx = 1;
        at.gridy = 7;
        grid.add(send, at);
        send.addActionListener(e -> onSave());
        form.add(grid, BorderLayout.NORTH);
        form.setPreferredSize(new Dimension(470, 0));
        return form;
    }

    static void row(JPanel grid, GridBagConstraints at, int y, String text, Component field) {
        JLabel label = new JLabel(text);
        label.setLabelFor(field);
        at.gridx = 0;
        at.gridy = y;
        grid.add(label, at);
        at.gridx = 1;
        grid.add(field, at);
    }

    void onSave() {
        String chosen = (String) product.getSelectedItem();
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("patient", patient == null ? null : patient[0]);
        values.put("indication", indication.getText());
        values.put("produit", List.of(PRODUCTS).contains(chosen) ? chosen : "");
        values.put("unites", units.getText());
        values.put("date", date.getText());
        values.put("irradie", irradiated.isSelected());
        values.put("prescripteur", prescriber.getText());
        List<String> missing = new ArrayList<>();
        for (String name : new String[] {"patient", "indication", "produit", "unites", "date"}) {
            Object value = values.get(name);
            if (value == null || value.toString().isEmpty()) {
                missing.add(name);
            }
        }
        if (missing.isEmpty() && !units.getText().matches("[1-9][0-9]?")) {
            missing.add("unites");
        }
        if (missing.isEmpty() && !isDate(date.getText())) {
            missing.add("date");
        }
        if (!missing.isEmpty()) {
            status.setText("Demande refusée : champ(s) à corriger : " + String.join(", ", missing) + ".");
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("missing", missing);
            effect("error", detail);
            return;
        }
        status.setText("Demande envoyée : " + patient[1] + " " + patient[2] + ", " + units.getText() + " × " + chosen + ".");
        effect("save", values);
        for (JTextField entry : new JTextField[] {indication, units, date, prescriber}) {
            entry.setText("");  // ready for the next request
        }
        product.setSelectedIndex(0);
        irradiated.setSelected(false);
    }

    static boolean isDate(String text) {
        try {
            LocalDate.parse(text, DATE);
            return true;
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    // --- the effects log -----------------------------------------------------------------------------
    void effect(String kind, Map<String, Object> detail) {
        seq += 1;
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("seq", seq);
        line.put("at", System.currentTimeMillis() / 1000.0);
        line.put("kind", kind);
        line.put("detail", detail);
        if (effectsPath == null) {
            return;
        }
        try {
            Files.writeString(effectsPath, json(line) + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the effects log", e);
        }
    }

    static String json(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Boolean || value instanceof Number) {
            return value.toString();
        }
        if (value instanceof Map<?, ?> map) {
            List<String> parts = new ArrayList<>();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                parts.add(json(entry.getKey().toString()) + ": " + json(entry.getValue()));
            }
            return "{" + String.join(", ", parts) + "}";
        }
        if (value instanceof List<?> list) {
            List<String> parts = new ArrayList<>();
            for (Object item : list) {
                parts.add(json(item));
            }
            return "[" + String.join(", ", parts) + "]";
        }
        if (value instanceof int[] box) {
            return "[" + box[0] + ", " + box[1] + ", " + box[2] + ", " + box[3] + "]";
        }
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toString().toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    // --- where things are, for the scripted person ---------------------------------------------------
    void writeLayout() {
        if (layoutPath == null || !frame.isShowing()) {
            return;
        }
        Map<String, Object> boxes = new LinkedHashMap<>();
        Map<String, Component> widgets = new LinkedHashMap<>();
        widgets.put("query", query);
        widgets.put("find", find);
        widgets.put("table", table);
        widgets.put("indication", indication);
        widgets.put("product", product);
        widgets.put("units", units);
        widgets.put("date", date);
        widgets.put("irradiated", irradiated);
        widgets.put("prescriber", prescriber);
        widgets.put("send", send);
        widgets.put("form", form);
        widgets.put("help", help);
        for (Map.Entry<String, Component> entry : widgets.entrySet()) {
            Component widget = entry.getValue();
            if (widget.isShowing()) {
                boxes.put(entry.getKey(), box(widget, new Rectangle(0, 0, widget.getWidth(), widget.getHeight())));
            }
        }
        Map<String, Object> cells = new LinkedHashMap<>();
        for (int r = 0; r < rows.getRowCount(); r++) {
            cells.put((String) rows.getValueAt(r, 2), box(table, table.getCellRect(r, 2, false)));
        }
        boxes.put("rows", cells);
        boxes.put("options", options());
        boxes.put("window", box(frame.getContentPane(), new Rectangle(0, 0,
            frame.getContentPane().getWidth(), frame.getContentPane().getHeight())));
        Component focus = frame.getFocusOwner();
        String focused = null;
        for (Map.Entry<String, Component> entry : widgets.entrySet()) {
            if (entry.getValue() == focus) {
                focused = entry.getKey();
            }
        }
        boxes.put("focus", focused);
        boxes.put("caret", focus instanceof JTextField field ? field.getCaretPosition() : -1);
        String text = json(boxes);
        if (text.equals(lastLayout)) {
            return;
        }
        try {
            Path partial = layoutPath.resolveSibling(layoutPath.getFileName() + ".tmp");
            Files.writeString(partial, text, StandardCharsets.UTF_8);
            Files.move(partial, layoutPath, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            lastLayout = text;
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the layout", e);
        }
    }

    /** The product drop-down's open list, option by option (empty while it is closed). */
    Map<String, Object> options() {
        Map<String, Object> found = new LinkedHashMap<>();
        Object popup = product.getUI().getAccessibleChild(product, 0);  // Swing's own popup object, no bridge
        if (!product.isPopupVisible() || !(popup instanceof ComboPopup combo)) {
            return found;
        }
        JList<?> list = combo.getList();
        if (!list.isShowing()) {
            return found;
        }
        for (int i = 0; i < list.getModel().getSize(); i++) {
            Rectangle cell = list.getCellBounds(i, i);
            if (cell != null) {
                found.put(list.getModel().getElementAt(i).toString(), box(list, cell));
            }
        }
        return found;
    }

    static int[] box(Component widget, Rectangle inside) {
        java.awt.Point origin = widget.getLocationOnScreen();
        return new int[] {origin.x + inside.x, origin.y + inside.y, inside.width, inside.height};
    }

    public static void main(String[] args) throws Exception {
        Path effects = null;
        Path layout = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--effects" -> effects = Path.of(args[i + 1]);
                case "--layout" -> layout = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Locale.setDefault(Locale.FRANCE);
        MetalLookAndFeel.setCurrentTheme(new DefaultMetalTheme());  // "Steel": the look of Java 1.4
        UIManager.setLookAndFeel(new MetalLookAndFeel());
        Path effectsPath = effects;
        Path layoutPath = layout;
        SwingUtilities.invokeAndWait(() -> {
            try {
                SwingTransfusion desk = new SwingTransfusion(effectsPath, layoutPath);
                desk.frame.setVisible(true);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
