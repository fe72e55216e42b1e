import CropGeometry
import Foundation
let r = CropRequest(sourceSize: Size(width: 4000, height: 3000), viewport: Size(width: 300, height: 300), selection: Rect(x: 75, y: 75, width: 150, height: 150))
print(r.result())
print(cropPixels(source: CGSize(width: 4000, height: 3000), viewport: CGSize(width: 300, height: 300), selection: CGRect(x: 0, y: 0, width: 300, height: 37.5)) as Any)
print(cropPixels(source: CGSize(width: 4000, height: 3000), viewport: CGSize(width: 300, height: 300), selection: CGRect(x: 0, y: 0, width: 300, height: 300)) as Any)
