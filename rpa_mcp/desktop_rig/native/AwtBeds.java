/*
 * A Java AWT application for measuring learning and replay on software nobody tuned to, by vision alone.
 *
 * The bed management desk of a hospital, in French, in the look of a Java 1.1 program: heavyweight
 * java.awt widgets drawn by AWT's X toolkit (XToolkit), a Motif-like grey with 3D bevels, no Swing at all.
 * A patient search (TextField + Button) fills a java.awt.List, one line a patient ("NOM Prénom — né(e) le
 * … — IPP …"), picked by a click on its line; an assignment form (GridBagLayout: each field named by a
 * label on its left) with a hosting unit drop-down (Choice), the bed assigned, the expected entry date
 * typed as text, a "single room" Checkbox, instructions for the ward, an optional referring doctor, and
 * "Affecter le lit", which checks the form and answers on a coloured banner at the bottom. Opening a
 * patient titles the window "Gestion des lits — NOM Prénom".
 *
 * Java's accessibility bridge to AT-SPI is never loaded (javax.accessibility.assistive_technologies is
 * set empty; AWT's heavyweight widgets have no bridge of their own): what a platform learns of it, it
 * learns from the screen. It runs as a single source file under OpenJDK 17 (no build step), never loaded
 * by the server:
 *
 *     java -Dfile.encoding=UTF-8 --add-opens=java.desktop/java.awt=ALL-UNNAMED \
 *         --add-opens=java.desktop/sun.awt.X11=ALL-UNNAMED AwtBeds.java --effects e.jsonl --layout l.json
 *
 * Every effect it undergoes is one JSON line in --effects (seq, at, kind, detail), as effects_log.py
 * writes them: search (q, hits), open (patient), save (every field's value), error (missing fields).
 * --layout is kept up to date with where the widgets are on the screen (the scripted person's eyes
 * only: a person sees where things are; the platform never reads it). The two --add-opens let it say
 * when the drop-down's list is open, which AWT keeps in its X11 peer. Java's standard library only.
 */

import java.awt.BorderLayout;
import java.awt.Button;
import java.awt.Checkbox;
import java.awt.Choice;
import java.awt.Color;
import java.awt.Component;
import java.awt.Dimension;
import java.awt.EventQueue;
import java.awt.FlowLayout;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Frame;
import java.awt.Graphics;
import java.awt.GridBagConstraints;
import java.awt.GridBagLayout;
import java.awt.Insets;
import java.awt.Label;
import java.awt.Menu;
import java.awt.MenuBar;
import java.awt.MenuItem;
import java.awt.Panel;
import java.awt.Point;
import java.awt.TextField;
import java.awt.event.ItemEvent;
import java.awt.event.WindowAdapter;
import java.awt.event.WindowEvent;
import java.io.IOException;
import java.lang.reflect.Field;
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
import java.util.Timer;
import java.util.TimerTask;

public class AwtBeds {
    static final String TITLE = "Gestion des lits — Affectation";
    static final String NONE_CHOSEN = "— choisir —";
    static final String[] UNITS = {
        "Médecine interne A",
        "Chirurgie orthopédique",
        "Court séjour gériatrique",
        "Unité de soins continus",
        "Hépato-gastro-entérologie",
        "Soins de suite et réadaptation",
    };
    static final String[][] PATIENTS = {  // IPP, NOM, Prénom, date of birth, F or M
        {"900311", "GAUTHIER", "Édith", "04/02/1944", "F"},
        {"900312", "GAUTHIER", "Rémi", "17/09/1971", "M"},
        {"900327", "MEUNIER", "Chantal", "22/12/1950", "F"},
        {"900334", "LEFÈVRE", "Grégoire", "09/05/1963", "M"},
        {"900348", "BOYER", "Maëlys", "30/01/1998", "F"},
        {"900352", "DUMAS", "Hélène", "13/07/1939", "F"},
        {"900353", "DUMASSE", "Loïc", "25/03/1982", "M"},
        {"900366", "RENAUD", "Thérèse", "06/10/1929", "F"},
        {"900371", "ROLLAND", "Jérôme", "18/04/1958", "M"},
        {"900385", "AUBRY", "Célestine", "02/11/1947", "F"},
        {"900392", "CLÉMENT", "François", "27/08/1975", "M"},
        {"900398", "BOUCHER", "Agathe", "14/06/1988", "F"},
    };
    static final DateTimeFormatter DATE =
        DateTimeFormatter.ofPattern("dd/MM/uuuu").withResolverStyle(ResolverStyle.STRICT);
    static final Color GREY = new Color(0xC6, 0xC3, 0xC6);
    static final Color SAVED = new Color(0x1E, 0x6B, 0x2E);
    static final Color REFUSED = new Color(0xA8, 0x1C, 0x1C);

    final Path effectsPath;
    final Path layoutPath;
    int seq;
    String lastLayout = "";
    String[] patient;
    final List<String[]> shown = new ArrayList<>();  // the patients on the result list's lines, in order

    final Frame frame = new Frame(TITLE);
    final TextField query = new TextField(18);
    final Button find = new Button("Rechercher");
    final java.awt.List results = new java.awt.List(10, false);
    final Label count = new Label("Saisissez un nom puis « Rechercher ».");
    final Label who = new Label("Aucun patient sélectionné");
    final Choice unit = new Choice();
    final TextField bed = new TextField(8);
    final TextField date = new TextField(10);
    final Checkbox single = new Checkbox("Chambre individuelle");
    final TextField instructions = new TextField(30);
    final TextField referent = new TextField(18);
    final Button assign = new Button("Affecter le lit");
    final Label banner = new Label("Prêt.");
    final Panel form = new Bevelled(new BorderLayout());

    /** A panel with a sunken 3D frame, as AWT programs drew their group boxes. */
    static class Bevelled extends Panel {
        Bevelled(java.awt.LayoutManager layout) {
            super(layout);
        }

        @Override
        public Insets getInsets() {
            return new Insets(10, 10, 10, 10);
        }

        @Override
        public void paint(Graphics g) {
            g.setColor(getBackground());
            g.draw3DRect(3, 3, getWidth() - 7, getHeight() - 7, false);
            g.draw3DRect(4, 4, getWidth() - 9, getHeight() - 9, true);
        }
    }

    AwtBeds(Path effects, Path layout) throws IOException {
        effectsPath = effects;
        layoutPath = layout;
        if (effects != null && Files.exists(effects)) {
            seq = Files.readAllLines(effects, StandardCharsets.UTF_8).size();
        }
        frame.setBackground(GREY);
        frame.setFont(new Font(Font.DIALOG, Font.PLAIN, 12));
        frame.setMenuBar(menus());
        frame.addWindowListener(new WindowAdapter() {
            @Override
            public void windowClosing(WindowEvent e) {
                System.exit(0);
            }
        });
        Panel body = new Panel(new BorderLayout(8, 8));
        body.add(searchSide(), BorderLayout.CENTER);
        body.add(formSide(), BorderLayout.EAST);
        frame.add(body, BorderLayout.CENTER);
        banner.setForeground(Color.BLACK);
        frame.add(banner, BorderLayout.SOUTH);
        frame.setSize(1000, 660);
        Timer eyes = new Timer("layout", true);
        eyes.scheduleAtFixedRate(new TimerTask() {
            @Override
            public void run() {
                EventQueue.invokeLater(AwtBeds.this::writeLayout);
            }
        }, 200, 200);
    }

    MenuBar menus() {
        MenuBar bar = new MenuBar();
        for (String name : new String[] {"Fichier", "Édition", "Lits", "Mouvements", "Aide"}) {
            Menu menu = new Menu(name);
            bar.add(menu);
            if (name.equals("Lits")) {
                menu.add(new MenuItem("Tableau des lits"));
                menu.add(new MenuItem("Lits à libérer"));
            } else {
                menu.add(new MenuItem("(vide)"));
            }
        }
        return bar;
    }

    // --- the search and its results -----------------------------------------------------------------
    Panel searchSide() {
        Panel side = new Bevelled(new BorderLayout(4, 6));
        Panel top = new Panel(new BorderLayout());
        Label heading = new Label("Recherche patient");
        heading.setFont(new Font(Font.DIALOG, Font.BOLD, 12));
        top.add(heading, BorderLayout.NORTH);
        Panel line = new Panel(new FlowLayout(FlowLayout.LEFT, 6, 2));
        line.add(new Label("Nom du patient :"));
        line.add(query);
        line.add(find);
        top.add(line, BorderLayout.CENTER);
        query.addActionListener(e -> onSearch());
        find.addActionListener(e -> onSearch());
        side.add(top, BorderLayout.NORTH);
        results.setBackground(Color.WHITE);
        results.addItemListener(e -> {
            if (e.getStateChange() == ItemEvent.SELECTED) {
                onPick();
            }
        });
        side.add(results, BorderLayout.CENTER);
        side.add(count, BorderLayout.SOUTH);
        return side;
    }

    static String line(String[] p) {
        return p[1] + " " + p[2] + " — " + (p[4].equals("F") ? "née" : "né") + " le " + p[3] + " — IPP " + p[0];
    }

    void onSearch() {
        String q = query.getText().strip();
        List<String> hits = new ArrayList<>();
        results.removeAll();
        shown.clear();
        for (String[] p : PATIENTS) {
            if (!q.isEmpty() && (p[1].startsWith(q.toUpperCase(Locale.FRANCE)) || p[0].equals(q))) {
                results.add(line(p));
                shown.add(p);
                hits.add(p[0]);
            }
        }
        count.setText(hits.size() + " patient(s) trouvé(s) pour « " + q + " ».");
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("q", q);
        detail.put("hits", hits);
        effect("search", detail);
    }

    void onPick() {
        int row = results.getSelectedIndex();
        if (row < 0 || row >= shown.size()) {
            return;
        }
        String[] p = shown.get(row);
        if (p == patient) {
            return;
        }
        patient = p;
        frame.setTitle("Gestion des lits — " + p[1] + " " + p[2]);
        who.setText("Patient : " + p[1] + " " + p[2] + " — IPP " + p[0]);
        say("Dossier " + p[0] + " ouvert.", null);
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("patient", p[0]);
        effect("open", detail);
    }

    // --- the assignment form -------------------------------------------------------------------------
    Panel formSide() {
        Panel grid = new Panel(new GridBagLayout());
        GridBagConstraints at = new GridBagConstraints();
        at.insets = new Insets(4, 4, 4, 4);
        at.anchor = GridBagConstraints.WEST;
        at.gridx = 0;
        at.gridy = 0;
        at.gridwidth = 2;
        Label heading = new Label("Affectation d'un lit");
        heading.setFont(new Font(Font.DIALOG, Font.BOLD, 12));
        grid.add(heading, at);
        at.gridy = 1;
        grid.add(who, at);
        at.gridwidth = 1;
        unit.add(NONE_CHOSEN);
        for (String name : UNITS) {
            unit.add(name);
        }
        Panel dateLine = new Panel(new FlowLayout(FlowLayout.LEFT, 4, 0));
        dateLine.add(date);
        dateLine.add(new Label("(jj/mm/aaaa)"));
        row(grid, at, 2, "Unité d'hébergement :", unit);
        row(grid, at, 3, "Lit attribué :", bed);
        row(grid, at, 4, "Entrée prévue le :", dateLine);
        at.gridx = 1;
        at.gridy = 5;
        grid.add(single, at);
        row(grid, at, 6, "Consignes :", instructions);
        row(grid, at, 7, "Médecin référent :", referent);
        at.gridx = 1;
        at.gridy = 8;
        grid.add(assign, at);
        assign.addActionListener(e -> onSave());
        form.add(grid, BorderLayout.NORTH);
        form.setPreferredSize(new Dimension(540, 0));
        return form;
    }

    static void row(Panel grid, GridBagConstraints at, int y, String text, Component field) {
        at.gridx = 0;
        at.gridy = y;
        grid.add(new Label(text), at);
        at.gridx = 1;
        grid.add(field, at);
    }

    void onSave() {
        String chosen = unit.getSelectedItem();
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("patient", patient == null ? null : patient[0]);
        values.put("unite", List.of(UNITS).contains(chosen) ? chosen : "");
        values.put("lit", bed.getText());
        values.put("date", date.getText());
        values.put("chambre_individuelle", single.getState());
        values.put("consignes", instructions.getText());
        values.put("referent", referent.getText());
        List<String> missing = new ArrayList<>();
        for (String name : new String[] {"patient", "unite", "lit", "date"}) {
            Object value = values.get(name);
            if (value == null || value.toString().isEmpty()) {
                missing.add(name);
            }
        }
        if (missing.isEmpty() && !bed.getText().matches("[A-Z0-9]{2,4}-[A-Z0-9]{1,2}")) {
            missing.add("lit");
        }
        if (missing.isEmpty() && !isDate(date.getText())) {
            missing.add("date");
        }
        if (!missing.isEmpty()) {
            say("Affectation refusée : champ(s) à corriger : " + String.join(", ", missing) + ".", REFUSED);
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("missing", missing);
            effect("error", detail);
            return;
        }
        say("Lit " + bed.getText() + " affecté à " + patient[1] + " " + patient[2] + " — " + chosen
            + " — entrée le " + date.getText() + ".", SAVED);
        effect("save", values);
        for (TextField entry : new TextField[] {bed, date, instructions, referent}) {
            entry.setText("");  // ready for the next assignment
        }
        unit.select(0);
        single.setState(false);
    }

    void say(String text, Color background) {
        banner.setText(text);
        banner.setBackground(background == null ? GREY : background);
        banner.setForeground(background == null ? Color.BLACK : Color.WHITE);
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
        widgets.put("results", results);
        widgets.put("unit", unit);
        widgets.put("bed", bed);
        widgets.put("date", date);
        widgets.put("single", single);
        widgets.put("instructions", instructions);
        widgets.put("referent", referent);
        widgets.put("assign", assign);
        widgets.put("form", form);
        for (Map.Entry<String, Component> entry : widgets.entrySet()) {
            Component widget = entry.getValue();
            if (widget.isShowing()) {
                boxes.put(entry.getKey(), box(widget, 0, 0, widget.getWidth(), widget.getHeight()));
            }
        }
        boxes.put("rows", rows());
        boxes.put("options", options());
        boxes.put("unit_shown", unit.getSelectedItem());
        boxes.put("single_ticked", single.getState());
        boxes.put("window", box(frame, frame.getInsets().left, frame.getInsets().top,
            frame.getWidth() - frame.getInsets().left - frame.getInsets().right,
            frame.getHeight() - frame.getInsets().top - frame.getInsets().bottom));
        Component focus = frame.getFocusOwner();
        String focused = null;
        for (Map.Entry<String, Component> entry : widgets.entrySet()) {
            if (entry.getValue() == focus) {
                focused = entry.getKey();
            }
        }
        boxes.put("focus", focused);
        boxes.put("caret", focus instanceof TextField field ? field.getCaretPosition() : -1);
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

    /** Each result line's first name, where AWT's X11 list draws it (2 px margin, 1 px space, lines of the
     * font's height less its leading, plus 2). */
    Map<String, Object> rows() {
        Map<String, Object> found = new LinkedHashMap<>();
        if (!results.isShowing()) {
            return found;
        }
        FontMetrics fm = results.getFontMetrics(results.getFont());
        int height = fm.getHeight() - fm.getLeading() + 2;
        for (int i = 0; i < shown.size(); i++) {
            String[] p = shown.get(i);
            int x = 3 + fm.stringWidth(p[1] + " ");
            found.put(p[2], box(results, x, 2 + i * height + 1, fm.stringWidth(p[2]), height - 2));
        }
        return found;
    }

    /** The unit drop-down's open list, option by option (empty while it is closed): AWT's X11 choice opens its
     * list just below itself, items of the font's height plus 2, 2 px apart, 1 px border. */
    Map<String, Object> options() {
        Map<String, Object> found = new LinkedHashMap<>();
        if (!unit.isShowing() || !unfurled()) {
            return found;
        }
        FontMetrics fm = unit.getFontMetrics(unit.getFont());
        int pitch = fm.getHeight() + 2 + 2;
        int width = unit.getWidth();
        for (int i = 0; i < unit.getItemCount(); i++) {
            width = Math.max(width, fm.stringWidth(unit.getItem(i)) + 6);
        }
        int listHeight = 2 + unit.getItemCount() * pitch;
        Point at = unit.getLocationOnScreen();
        int top = at.y + unit.getHeight();
        if (top + listHeight > frame.getGraphicsConfiguration().getBounds().height) {
            top = at.y - listHeight;
        }
        for (int i = 0; i < unit.getItemCount(); i++) {
            found.put(unit.getItem(i), new int[] {at.x + 1, top + 2 + i * pitch, width - 2, pitch - 2});
        }
        return found;
    }

    static Field peerField;

    /** Whether the drop-down's list is open, as its X11 peer knows (no public API says it). */
    boolean unfurled() {
        try {
            if (peerField == null) {
                peerField = Component.class.getDeclaredField("peer");
                peerField.setAccessible(true);
            }
            Object peer = peerField.get(unit);
            if (peer == null) {
                return false;
            }
            java.lang.reflect.Method open = peer.getClass().getMethod("isUnfurled");
            open.setAccessible(true);
            return (Boolean) open.invoke(peer);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    static int[] box(Component widget, int x, int y, int width, int height) {
        Point origin = widget.getLocationOnScreen();
        return new int[] {origin.x + x, origin.y + y, width, height};
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
        Path effectsPath = effects;
        Path layoutPath = layout;
        EventQueue.invokeAndWait(() -> {
            try {
                AwtBeds desk = new AwtBeds(effectsPath, layoutPath);
                desk.frame.setVisible(true);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
