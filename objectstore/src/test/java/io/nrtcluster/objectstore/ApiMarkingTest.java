package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.Stable;
import io.nrtcluster.election.ZooKeeperAuth;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rule of docs/api.md, checked on the compiled library: every public top-level type of the seven
 * library modules says whether it is {@link Stable}, {@link Experimental} or {@link Internal} (the API
 * check only covers {@code @Stable}, so an unmarked type would silently escape it), and the stable
 * API does not hand out internal types. It lives here because objectstore is the one library module
 * that sees all the others.
 */
class ApiMarkingTest {
  private static final List<Class<?>> ANCHORS = List.of(NrtClusterException.class, TransportConfig.class,
      Primary.class, Replica.class, ZooKeeperAuth.class, NrtHost.class, HostObjectStore.class);

  private static List<Class<?>> publicTypes;

  @BeforeAll
  static void load() throws Exception {
    publicTypes = new ArrayList<>();
    for (Class<?> anchor : ANCHORS) {
      for (String name : classNames(anchor)) {
        Class<?> c = Class.forName(name, false, ApiMarkingTest.class.getClassLoader());
        if (Modifier.isPublic(c.getModifiers()) && c.getPackageName().equals(anchor.getPackageName())) {
          publicTypes.add(c);
        }
      }
    }
    assertThat(publicTypes).as("public types found in the seven library modules").hasSizeGreaterThan(100);
  }

  @Test
  void everyPublicTopLevelTypeIsMarkedOnce() {
    List<String> wrong = new ArrayList<>();
    for (Class<?> c : publicTypes) {
      if (c.getEnclosingClass() == null && marks(c) != 1) {
        wrong.add(c.getName() + " (" + marks(c) + " marks)");
      }
    }
    assertThat(wrong).as("public types with not exactly one of @Stable, @Experimental, @Internal").isEmpty();
  }

  @Test
  void stableApiDoesNotExposeInternalTypes() {
    List<String> leaks = new ArrayList<>();
    for (Class<?> c : publicTypes) {
      if (level(c) != Stable.class) {
        continue;
      }
      List<Member> members = new ArrayList<>();
      members.addAll(List.of(c.getDeclaredMethods()));
      members.addAll(List.of(c.getDeclaredConstructors()));
      members.addAll(List.of(c.getDeclaredFields()));
      for (Member m : members) {
        if (!visible(m) || m.isSynthetic() || marks((AnnotatedElement) m) > 0) {
          continue;
        }
        for (Type t : signature(m)) {
          for (Class<?> used : classesIn(t)) {
            if (used.getPackageName().startsWith("io.nrtcluster.") && level(used) == Internal.class) {
              leaks.add(c.getName() + "." + m.getName() + " uses " + used.getName());
            }
          }
        }
      }
      if (c.getSuperclass() != null && c.getSuperclass().getPackageName().startsWith("io.nrtcluster.")
          && level(c.getSuperclass()) == Internal.class) {
        leaks.add(c.getName() + " extends " + c.getSuperclass().getName());
      }
    }
    assertThat(leaks).as("stable members whose signature names an @Internal type (mark the member too)").isEmpty();
  }

  /** The marking that applies to {@code c}: its own, else its enclosing type's. */
  private static Class<?> level(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
      if (k.isAnnotationPresent(Internal.class)) {
        return Internal.class;
      }
      if (k.isAnnotationPresent(Experimental.class)) {
        return Experimental.class;
      }
      if (k.isAnnotationPresent(Stable.class)) {
        return Stable.class;
      }
    }
    return null;
  }

  private static int marks(AnnotatedElement e) {
    return (e.isAnnotationPresent(Stable.class) ? 1 : 0) + (e.isAnnotationPresent(Experimental.class) ? 1 : 0)
        + (e.isAnnotationPresent(Internal.class) ? 1 : 0);
  }

  private static boolean visible(Member m) {
    int mod = m.getModifiers();
    return Modifier.isPublic(mod) || (Modifier.isProtected(mod) && !Modifier.isFinal(m.getDeclaringClass().getModifiers()));
  }

  private static List<Type> signature(Member m) {
    List<Type> types = new ArrayList<>();
    if (m instanceof Method method) {
      types.add(method.getGenericReturnType());
    }
    if (m instanceof Executable e) {
      types.addAll(List.of(e.getGenericParameterTypes()));
      types.addAll(List.of(e.getGenericExceptionTypes()));
    }
    if (m instanceof Field f) {
      types.add(f.getGenericType());
    }
    return types;
  }

  private static List<Class<?>> classesIn(Type t) {
    List<Class<?>> out = new ArrayList<>();
    switch (t) {
      case Class<?> c -> out.add(c.isArray() ? c.componentType() : c);
      case ParameterizedType p -> {
        out.addAll(classesIn(p.getRawType()));
        for (Type a : p.getActualTypeArguments()) {
          out.addAll(classesIn(a));
        }
      }
      case GenericArrayType g -> out.addAll(classesIn(g.getGenericComponentType()));
      case WildcardType w -> {
        for (Type b : w.getUpperBounds()) {
          out.addAll(classesIn(b));
        }
        for (Type b : w.getLowerBounds()) {
          out.addAll(classesIn(b));
        }
      }
      default -> { }
    }
    return out;
  }

  /** Every class in the directory or jar {@code anchor} was loaded from (reactor: target/classes). */
  private static List<String> classNames(Class<?> anchor) throws IOException, URISyntaxException {
    Path root = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(root)) {
      try (Stream<Path> files = Files.walk(root)) {
        files.filter(p -> p.toString().endsWith(".class"))
            .forEach(p -> names.add(toName(root.relativize(p).toString().replace('\\', '/'))));
      }
    } else {
      try (ZipFile jar = new ZipFile(root.toFile())) {
        for (Enumeration<? extends ZipEntry> e = jar.entries(); e.hasMoreElements(); ) {
          String entry = e.nextElement().getName();
          if (entry.endsWith(".class") && !entry.startsWith("META-INF/")) {
            names.add(toName(entry));
          }
        }
      }
    }
    names.removeIf(n -> n.endsWith("package-info") || n.endsWith("module-info"));
    return names;
  }

  private static String toName(String path) {
    return path.substring(0, path.length() - ".class".length()).replace('/', '.');
  }
}
