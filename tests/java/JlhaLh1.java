// Compresses files to raw LHA -lh1- (LZHUF) streams with the jlha library (Debian package
// libjlha-java, pulled in by jlha-utils), for ngi's LZHUF conformance tests: an encoder
// nobody on the team wrote. Usage: java -cp jlha.jar:. JlhaLh1 IN OUT [IN OUT ...]
// Each OUT receives the raw stream jlha's -lh1- encoder writes for IN: no LHA header.

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Paths;

import jp.gr.java_conf.dangan.util.lha.CompressMethod;
import jp.gr.java_conf.dangan.util.lha.LhaProperty;

public class JlhaLh1 {
    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args.length % 2 != 0) {
            System.err.println("usage: JlhaLh1 IN OUT [IN OUT ...]");
            System.exit(2);
        }
        for (int i = 0; i < args.length; i += 2) {
            byte[] data = Files.readAllBytes(Paths.get(args[i]));
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            OutputStream encoder =
                CompressMethod.connectEncoder(raw, CompressMethod.LH1, LhaProperty.getProperties());
            encoder.write(data);
            encoder.close();
            Files.write(Paths.get(args[i + 1]), raw.toByteArray());
        }
    }
}
