package io.nrtcluster.common;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Public API a service may build on: within one major version a release keeps it binary and
 * source compatible (no public or protected type, method, field or constructor of it is removed or
 * changed incompatibly), and the build's API check (japicmp against the previous release, see
 * docs/api.md) fails on any change that would break that. Methods may be added, and records and
 * enums may gain components or constants only where docs/api.md allows it.
 *
 * <p>On a type it covers the type's public and protected members and its nested types, except
 * members marked {@link Internal} or {@link Experimental}. Retained at run time so that tests and
 * tools can tell the three kinds apart; it has no effect on behaviour.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
@Stable
public @interface Stable {}
