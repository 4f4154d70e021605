package dev.ledger.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The results of one run: measurements grouped by scenario (median, min, max over rounds)
 * and ratios checked against their targets, rendered as Markdown.
 */
final class Report {
  private final Map<String, List<Row>> sections = new LinkedHashMap<>();
  private final List<Ratio> ratios = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final Map<String, Stats> byKey = new LinkedHashMap<>();

  private record Row(String name, String unit, Stats stats) {}

  /** How a ratio is judged: at least or at most the target, or only reported. */
  enum Goal { AT_LEAST, AT_MOST, REPORT }

  private record Ratio(String scenario, String name, double value, Goal goal, double target,
      String detail) {}

  /** Adds (or returns the existing) measurement {@code name} of {@code scenario}. */
  Stats stats(String scenario, String name, String unit) {
    String key = scenario + "\u0000" + name;
    return byKey.computeIfAbsent(key, k -> {
      Stats s = new Stats();
      sections.computeIfAbsent(scenario, x -> new ArrayList<>()).add(new Row(name, unit, s));
      return s;
    });
  }

  /** The ratio of two medians, with its target. */
  void ratio(String scenario, String name, Stats numerator, Stats denominator, Goal goal,
      double target) {
    double value = numerator.median() / denominator.median();
    ratios.add(new Ratio(scenario, name, value, goal, target, ""));
  }

  void ratio(String scenario, String name, double value, Goal goal, double target,
      String detail) {
    ratios.add(new Ratio(scenario, name, value, goal, target, detail));
  }

  void note(String text) {
    notes.add(text);
  }

  String markdown(String header) {
    StringBuilder md = new StringBuilder(header);
    for (Map.Entry<String, List<Row>> section : sections.entrySet()) {
      md.append("\n### ").append(section.getKey()).append("\n\n");
      md.append("| measurement | median | min | max | unit | rounds |\n");
      md.append("|---|---:|---:|---:|---|---:|\n");
      for (Row row : section.getValue()) {
        md.append("| ").append(row.name()).append(" | ").append(num(row.stats().median()))
            .append(" | ").append(num(row.stats().min())).append(" | ")
            .append(num(row.stats().max())).append(" | ").append(row.unit()).append(" | ")
            .append(row.stats().count()).append(" |\n");
      }
    }
    md.append("\n### Ratios (of medians, same run) and targets\n\n");
    md.append("| scenario | ratio | value | target | met |\n");
    md.append("|---|---|---:|---|---|\n");
    for (Ratio r : ratios) {
      String target;
      String met;
      switch (r.goal()) {
        case AT_LEAST -> {
          target = ">= " + num(r.target());
          met = r.value() >= r.target() ? "yes" : "**no**";
        }
        case AT_MOST -> {
          target = "<= " + num(r.target());
          met = r.value() <= r.target() ? "yes" : "**no**";
        }
        default -> {
          target = "-";
          met = "-";
        }
      }
      md.append("| ").append(r.scenario()).append(" | ").append(r.name())
          .append(r.detail().isEmpty() ? "" : " (" + r.detail() + ")").append(" | ")
          .append(String.format(Locale.ROOT, "%.2f", r.value())).append(" | ").append(target)
          .append(" | ").append(met).append(" |\n");
    }
    if (!notes.isEmpty()) {
      md.append("\nNotes:\n\n");
      for (String note : notes) {
        md.append("- ").append(note).append('\n');
      }
    }
    return md.toString();
  }

  static String num(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    double a = Math.abs(v);
    if (a >= 1000) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (a >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    if (a >= 0.1) {
      return String.format(Locale.ROOT, "%.2f", v);
    }
    return String.format(Locale.ROOT, "%.3g", v);
  }
}
