import SSDP
import Testing

/// The bounded XML reader and the description view behind SSDP-6xx.
@Suite struct DeviceDescriptionTests {
    static let document = Array(
        """
        <?xml version="1.0" encoding="utf-8"?>
        <!-- minidlna-like -->
        <root xmlns="urn:schemas-upnp-org:device-1-0" xmlns:dlna="urn:schemas-dlna-org:device-1-0">
          <specVersion><major>1</major><minor>0</minor></specVersion>
          <URLBase>http://10.0.0.5:8200/</URLBase>
          <device>
            <deviceType>urn:schemas-upnp-org:device:MediaServer:1</deviceType>
            <friendlyName>A &amp; B &#x263A; <![CDATA[<raw>]]></friendlyName>
            <dlna:X_DLNADOC>DMS-1.50</dlna:X_DLNADOC>
            <UDN>uuid:4d696e69-444c-164e-9d41-b827eb000001</UDN>
            <serviceList>
              <service>
                <serviceType>urn:schemas-upnp-org:service:ContentDirectory:1</serviceType>
                <serviceId>urn:upnp-org:serviceId:ContentDirectory</serviceId>
                <SCPDURL>/ContentDir.xml</SCPDURL>
                <controlURL>ctl/ContentDir</controlURL>
                <eventSubURL>/evt/ContentDir</eventSubURL>
              </service>
            </serviceList>
            <deviceList>
              <device><deviceType>urn:x-test:device:Inner:1</deviceType><UDN>uuid:inner</UDN></device>
            </deviceList>
          </device>
        </root>

        """.utf8)

    @Test func readsTheDescription() throws {
        let d = try DeviceDescription(parsing: Self.document)
        #expect(d.rootName == "root")
        #expect(d.urlBase == "http://10.0.0.5:8200/")
        #expect(d.root?.friendlyName == "A & B \u{263A} <raw>")
        #expect(d.devices.map(\.udn) == ["uuid:4d696e69-444c-164e-9d41-b827eb000001", "uuid:inner"])
        #expect(d.root?.services.first?.controlURL == "ctl/ContentDir")
    }

    /// Every proper prefix of the document (past its first element) is not well-formed.
    @Test func everyPrefixIsRejected() {
        let start = Self.document.firstIndex(of: UInt8(ascii: "r")) ?? 0
        let end = Self.document.lastIndex(of: UInt8(ascii: ">")) ?? Self.document.count
        for n in start..<end {
            #expect(throws: XMLError.self) { try XMLReader.parse(Array(Self.document[0..<n])) }
        }
    }

    @Test(arguments: [
        "<a><b></a>", "<a>", "<a></a><b></b>", "<a x=1></a>", "<a x='1' x='2'></a>", "<a>&bogus;</a>", "x<a></a>",
        "<1a></1a>", "<a><!-- never closed</a>",
    ])
    func rejectsMalformed(_ text: String) {
        #expect(throws: XMLError.self) { try XMLReader.parse(Array(text.utf8)) }
    }

    @Test func boundsDepth() {
        let deep = String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40)
        #expect(throws: XMLError.self) { try XMLReader.parse(Array(deep.utf8)) }
        let wide = "<r>" + String(repeating: "<a/>", count: 5000) + "</r>"
        #expect(throws: XMLError.self) { try XMLReader.parse(Array(wide.utf8)) }
    }

    /// Seeded random bytes never crash the reader.
    @Test func randomBytesDoNotCrash() {
        var g = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var bytes = Self.document
            for _ in 0..<8 {
                let i = Int.random(in: 0..<bytes.count, using: &g)
                bytes[i] = UInt8.random(in: 0...255, using: &g)
            }
            _ = try? DeviceDescription(parsing: bytes)
        }
    }

    @Test func resolvesRelativeURLs() throws {
        let base = try #require(HTTPURL("http://10.0.0.5:8200/dev/desc.xml"))
        #expect(base.resolve("ctl")?.description == "http://10.0.0.5:8200/dev/ctl")
        #expect(base.resolve("/ctl")?.description == "http://10.0.0.5:8200/ctl")
        #expect(base.resolve("../a/./b")?.description == "http://10.0.0.5:8200/a/b")
        #expect(base.resolve("http://[fe80::1]:49152/x")?.host == "fe80::1")
        #expect(base.resolve("//10.0.0.6/x")?.description == "http://10.0.0.6/x")
        #expect(base.resolve("") == nil)
        #expect(base.resolve("ftp://x/y") == nil)
        #expect(HTTPURL("http://10.0.0.5:99999/") == nil)
        #expect(HTTPURL("http://user@10.0.0.5/") == nil)
    }
}
