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

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: Neo4jLauncher HOME_DIR PORT PASSWORD_FILE");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);
        String password = Files.readString(Path.of(args[2])).strip();

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(10))
                .setConfig(GraphDatabaseSettings.pagecache_memory, Long.getLong("kgmem.pagecache", 1L << 30))
                .build();

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
