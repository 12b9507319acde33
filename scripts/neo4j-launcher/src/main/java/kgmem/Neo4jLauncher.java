package kgmem;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.QueryExecutionException;

/**
 * Runs Neo4j Community as an embedded DatabaseManagementService with the Bolt
 * connector listening on 127.0.0.1. Used by scripts/neo4j.sh for tests and local use.
 *
 * Arguments: HOME_DIR PORT PASSWORD_FILE
 * The password is read from a file so that it never shows in the process list.
 */
public final class Neo4jLauncher {
    private Neo4jLauncher() {}

    /**
     * Lucene segments a vector index lets pile up before it merges them (Neo4j's default is 50).
     * A vector query searches every segment for its whole k, so ~70 small segments of a store
     * written in batches made an episode vector query 17 ms instead of 10 at 100k episodes
     * (docs/benchmarks.md, #11 round nine). Fewer, larger segments cost background merge work.
     */
    static final int VECTOR_MERGE_FACTOR = 10;

    /** Sets Neo4j's internal vector merge factor when this version has it (looked up by name). */
    @SuppressWarnings("unchecked")
    static boolean setVectorMergeFactor(DatabaseManagementServiceBuilder builder, int factor) {
        try {
            Class<?> settings = Class.forName("org.neo4j.kernel.api.impl.index.LuceneSettings");
            Object setting = settings.getField("vector_standard_merge_factor").get(null);
            builder.setConfig((org.neo4j.graphdb.config.Setting<Integer>) setting, factor);
            return true;
        } catch (ReflectiveOperationException | ClassCastException e) {
            return false;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: Neo4jLauncher HOME_DIR PORT PASSWORD_FILE");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);
        String password = Files.readString(Path.of(args[2])).strip();

        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(10))
                .setConfig(GraphDatabaseSettings.pagecache_memory, Long.getLong("kgmem.pagecache", 1L << 30));
        int mergeFactor = Integer.getInteger("kgmem.vector_merge_factor", VECTOR_MERGE_FACTOR);
        if (!setVectorMergeFactor(builder, mergeFactor)) {
            System.out.println("kgmem-neo4j: this Neo4j has no vector merge-factor setting; its default applies");
        }
        DatabaseManagementService dbms = builder.build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("kgmem-neo4j: shutting down");
            dbms.shutdown();
            stopped.countDown();
        }));

        try {
            // Set the password of the built-in 'neo4j' user so that clients log in
            // with the credentials written to .neo4j/url. On a restart it is already set.
            try {
                dbms.database("system").executeTransactionally(
                        "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
            } catch (QueryExecutionException e) {
                if (e.getMessage() == null || !e.getMessage().contains("Old password and new password cannot be the same")) {
                    throw e;
                }
            }
        } catch (RuntimeException e) {
            System.err.println("kgmem-neo4j: start-up failed: " + e.getMessage());
            dbms.shutdown();
            System.exit(1);
        }
        String version = dbms.database("system").executeTransactionally(
                "CALL dbms.components() YIELD versions RETURN versions[0] AS v", Map.of(),
                r -> r.hasNext() ? String.valueOf(r.next().get("v")) : "?");
        System.out.println("kgmem-neo4j: Neo4j " + version + " ready on bolt://127.0.0.1:" + port);
        System.out.flush();
        stopped.await();
    }
}
