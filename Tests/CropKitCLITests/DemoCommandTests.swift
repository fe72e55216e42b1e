import Testing

@Suite struct DemoCommandTests {
    @Test func demoShowsTheScenarioAndTheDoubleTrap() {
        let run = cropkit("demo")
        #expect(run.status == 0)
        #expect(run.out.contains("pixels  1000,500,2000,2000"))
        #expect(run.out.contains("the article's Double code: 2,500,2001,2000"))
        #expect(run.out.contains("CropKit (exact):           2,500,2000,2000"))
        #expect(run.out.contains("rejected (noImagePixels)"))
    }
}
