package io.nrtcluster.examples.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class CursorTest {
  @Test
  void roundTripsAnyCursor() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (int i = 0; i < 1000; i++) {
      Cursor c = new Cursor(random.nextLong() & Long.MAX_VALUE, random.nextInt(Integer.MAX_VALUE), random.nextFloat() * 100);
      assertThat(Cursor.decode(c.encode())).as("seed %d", seed).isEqualTo(c);
    }
  }

  @Test
  void refusesWhatIsNotACursor() {
    for (String bad : new String[] {"", "!!", "AAAA", Base64.getUrlEncoder().encodeToString(new byte[17]),
        new Cursor(-1, 0, 0).encode(), new Cursor(1, -1, 0).encode(), new Cursor(1, 1, Float.NaN).encode()}) {
      assertThatThrownBy(() -> Cursor.decode(bad)).as(bad).isInstanceOfSatisfying(ApiException.class,
          e -> assertThat(e.error()).isEqualTo(ApiError.BAD_REQUEST));
    }
  }
}
