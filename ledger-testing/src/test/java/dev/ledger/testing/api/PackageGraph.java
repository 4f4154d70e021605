package dev.ledger.testing.api;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which package of the library uses which, read from the class files' constant pools (every
 * class, descriptor and generic signature a class file names is a string there), and the
 * cycles among them (strongly connected components of more than one package).
 */
final class PackageGraph {
  private static final Pattern LIBRARY_CLASS = Pattern.compile("dev/ledger/[A-Za-z0-9_/$]+");

  /** Package to the library packages its classes name (itself excluded). */
  private final Map<String, Set<String>> edges = new TreeMap<>();

  /** Adds what the class file {@code bytes} (of a class in {@code pkg}) names. */
  void add(String pkg, byte[] bytes) {
    Set<String> to = edges.computeIfAbsent(pkg, k -> new TreeSet<>());
    for (String text : utf8Constants(bytes)) {
      Matcher m = LIBRARY_CLASS.matcher(text);
      while (m.find()) {
        String name = m.group();
        int slash = name.lastIndexOf('/');
        String target = name.substring(0, slash).replace('/', '.');
        if (!target.equals(pkg)) {
          to.add(target);
        }
      }
    }
  }

  Map<String, Set<String>> edges() {
    return edges;
  }

  /** Every cycle: a set of two or more packages that all reach each other (Tarjan). */
  List<Set<String>> cycles() {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new java.util.HashSet<>();
    List<Set<String>> out = new ArrayList<>();
    int[] counter = {0};
    for (String v : edges.keySet()) {
      if (!index.containsKey(v)) {
        connect(v, index, low, stack, onStack, out, counter);
      }
    }
    return out;
  }

  private void connect(String v, Map<String, Integer> index, Map<String, Integer> low,
      Deque<String> stack, Set<String> onStack, List<Set<String>> out, int[] counter) {
    index.put(v, counter[0]);
    low.put(v, counter[0]);
    counter[0]++;
    stack.push(v);
    onStack.add(v);
    for (String w : edges.getOrDefault(v, Set.of())) {
      if (!edges.containsKey(w)) {
        continue; // a package outside the modules looked at
      }
      if (!index.containsKey(w)) {
        connect(w, index, low, stack, onStack, out, counter);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> component = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      if (component.size() > 1) {
        out.add(component);
      }
    }
  }

  /** The UTF-8 entries of a class file's constant pool. */
  static List<String> utf8Constants(byte[] bytes) {
    List<String> out = new ArrayList<>();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (in.readInt() != 0xCAFEBABE) {
        throw new IllegalArgumentException("not a class file");
      }
      in.readUnsignedShort(); // minor
      in.readUnsignedShort(); // major
      int count = in.readUnsignedShort();
      for (int i = 1; i < count; i++) {
        int tag = in.readUnsignedByte();
        switch (tag) {
          case 1 -> out.add(in.readUTF());
          case 3, 4 -> in.skipNBytes(4);
          case 5, 6 -> {
            in.skipNBytes(8);
            i++; // takes two slots
          }
          case 7, 8, 16, 19, 20 -> in.skipNBytes(2);
          case 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
          case 15 -> in.skipNBytes(3);
          default -> throw new IllegalArgumentException("constant pool tag " + tag);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
